import type {
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodePropertyOptions,
	ResourceMapperFields,
} from 'n8n-workflow';

import { getListGroups } from './listGroups';
import { searchPersons } from './persons';
import { getRecordFields, getUsableFields } from './usableFields';

export const loadOptions: Record<
	string,
	(this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>
> = {
	getListGroups,
	getUsableFields,
};

/** The lists of resource locators' From List modes (helpers/locators.ts). */
export const listSearch: Record<
	string,
	(
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	) => Promise<INodeListSearchResult>
> = {
	searchPersons,
};

/** The resource mappers' field lists (Custom List → Map List Fields). */
export const resourceMapping: Record<
	string,
	(this: ILoadOptionsFunctions) => Promise<ResourceMapperFields>
> = {
	getRecordFields,
};
