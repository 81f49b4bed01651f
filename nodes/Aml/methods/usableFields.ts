import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { fetchUsableFields } from '../actions/customList/shared';
import { uuidRule } from '../validation/rules';

/**
 * Usable fields of the custom list named by the node's current `customListId` parameter,
 * for screening search configurations: the option value is the field's UUID.
 */
export async function getUsableFields(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	// Plain text before node version 1.2, a resource locator from 1.2: n8n extracts the ID from either.
	const raw = this.getCurrentNodeParameter('customListId', { extractValue: true }) as unknown;
	const customListId = typeof raw === 'string' ? raw.trim() : '';
	if (customListId === '' || customListId.startsWith('=')) {
		throw new NodeOperationError(
			this.getNode(),
			'Enter a fixed Custom List ID (a UUID) first to load its fields',
		);
	}
	if (uuidRule(customListId)) {
		throw new NodeOperationError(
			this.getNode(),
			`The Custom List ID "${customListId}" is not a UUID`,
		);
	}
	const fields = await fetchUsableFields.call(this, customListId);
	return fields
		.filter((field: IDataObject) => field.id !== undefined && field.id !== null)
		.map((field: IDataObject) => ({
			name: String(field.name ?? field.id),
			value: String(field.id),
			description: `Field ID ${String(field.id)}`,
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
}
