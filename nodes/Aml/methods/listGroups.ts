import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { amlApiRequest } from '../transport';

/** Turns the service's list groups into options: name shown, code sent; sorted by name. Pure. */
export function listGroupOptions(groups: unknown): INodePropertyOptions[] {
	if (!Array.isArray(groups)) return [];
	return (groups as IDataObject[])
		.filter((group) => group && (typeof group.code === 'string' || typeof group.code === 'number'))
		.map((group) => {
			const code = String(group.code);
			const name = typeof group.name === 'string' && group.name.trim() ? group.name : code;
			return { name, value: code, description: name === code ? undefined : `Code: ${code}` };
		})
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** Active list groups of the organisation (selectors for screening search). Owned by the Screening resource. */
export async function getListGroups(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const groups = await amlApiRequest.call(this, {
		method: 'GET',
		path: '/v1/screening-list-groups',
	});
	return listGroupOptions(groups);
}
