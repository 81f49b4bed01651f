import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

/** Usable fields of a custom list (for screening search). Owned by the Custom List resource. */
export async function getUsableFields(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return [];
}
