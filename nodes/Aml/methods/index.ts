import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

/** Load-options methods (list groups, custom-list usable fields) are registered here. */
export const loadOptions: Record<string, (this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>> = {};
