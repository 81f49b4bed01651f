import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { getListGroups } from './listGroups';
import { getUsableFields } from './usableFields';

export const loadOptions: Record<
	string,
	(this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>
> = {
	getListGroups,
	getUsableFields,
};
