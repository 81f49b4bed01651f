import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

/** Active list groups of the organisation (selectors for screening search). Owned by the Screening resource. */
export async function getListGroups(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return [];
}
