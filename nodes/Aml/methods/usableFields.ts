import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodePropertyOptions,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { fetchUsableFields } from '../actions/customList/shared';
import { uuidRule } from '../validation/rules';

/** The usable fields of the custom list the node's current `customListId` names (a fixed UUID). */
async function currentListFields(this: ILoadOptionsFunctions): Promise<IDataObject[]> {
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
	return await fetchUsableFields.call(this, customListId);
}

/**
 * For Screening → Search configurations: the usable fields of every custom list whose fixed ID a configuration names
 * (the value is the field's UUID); with more than one list, each name says its list.
 */
export async function getUsableFields(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const rows = (this.getCurrentNodeParameters()?.configurations as IDataObject | undefined)
		?.configuration;
	const listIds = [
		...new Set(
			(Array.isArray(rows) ? (rows as IDataObject[]) : [])
				.map((row) => (typeof row.listId === 'string' ? row.listId.trim() : ''))
				.filter((id) => id !== '' && !id.startsWith('=') && uuidRule(id) === undefined),
		),
	];
	if (listIds.length === 0)
		throw new NodeOperationError(
			this.getNode(),
			"Enter a fixed Custom List ID (a UUID) in the configuration first to load its list's fields",
		);
	const options: INodePropertyOptions[] = [];
	for (const listId of listIds)
		for (const field of await fetchUsableFields.call(this, listId))
			if (field.id !== undefined && field.id !== null)
				options.push({
					name:
						listIds.length > 1
							? `${String(field.name ?? field.id)} (list ${listId})`
							: String(field.name ?? field.id),
					value: String(field.id),
					description: `Field ID ${String(field.id)}`,
				});
	return options.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * For a record's attributes (Map List Fields): a record's attribute names are the list's field names, so each
 * field is mapped by its name, in the order the service lists them.
 */
export async function getRecordFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const fields = await currentListFields.call(this);
	const names = [
		...new Set(
			fields
				.map((field: IDataObject) => field.name)
				.filter((name): name is string => typeof name === 'string' && name !== ''),
		),
	];
	return {
		fields: names.map(recordField),
		emptyFieldsNotice: 'The service lists no usable fields for this custom list',
	};
}

/** One field of the list in the mapper: its name is the attribute's name; none is required or matched on. */
export function recordField(name: string): ResourceMapperField {
	return {
		id: name,
		displayName: name,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: 'string',
	};
}
