import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { outputsExpression } from './actions/outputs';
import { resources, router } from './actions/router';
import { MAIN_CONNECTION } from '../shared/n8n/connections';
import { listSearch, loadOptions, resourceMapping } from './methods';

/** Every field of every operation as the resources list them: a field operations share is listed once per operation. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Alert', value: 'alert', description: 'Monitoring, screening and manual alerts' },
			{
				name: 'Custom List Record',
				value: 'customList',
				description: 'Records of the custom lists your organisation defines',
			},
			{
				name: 'Data Upload',
				value: 'dataUpload',
				description: 'Bulk CSV upload of persons or transactions',
			},
			{ name: 'Person', value: 'person', description: 'Customers and counterparties' },
			{
				name: 'Screening',
				value: 'screening',
				description: 'Name search against screening lists',
			},
			{
				name: 'Transaction',
				value: 'transaction',
				description: 'Monetary transactions of a person',
			},
		],
		default: 'person',
	},
	...Object.values(resources).flatMap((resource) => resource.description),
];

/**
 * The canvas subtitle: the names the user picked ("Gate: Transaction"), not the stored values. n8n evaluates it as an
 * expression; the names come from the Resource and Operation options.
 */
function subtitle(): string {
	const names: Record<string, string> = {};
	const resourceNames = new Map(
		(properties[0].options as Array<{ name: string; value: string }>).map((o) => [o.value, o.name]),
	);
	for (const property of properties) {
		if (property.name !== 'operation') continue;
		for (const resource of (property.displayOptions?.show?.resource ?? []) as string[])
			for (const option of (property.options ?? []) as Array<{ name: string; value: string }>)
				names[`${resource}:${option.value}`] =
					`${option.name}: ${resourceNames.get(resource) ?? resource}`;
	}
	return `={{ (${JSON.stringify(names)})[$parameter["resource"] + ":" + $parameter["operation"]] || $parameter["operation"] + ": " + $parameter["resource"] }}`;
}

export class Aml implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'AML',
		name: 'aml',
		icon: { light: 'file:../../icons/aml.svg', dark: 'file:../../icons/aml.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: subtitle(),
		description:
			'Store persons and transactions, run AML monitoring and screening checks, manage alerts, custom lists and CSV uploads',
		defaults: { name: 'AML' },
		usableAsTool: true,
		inputs: [MAIN_CONNECTION],
		outputs: outputsExpression as INodeTypeDescription['outputs'],
		credentials: [{ name: 'amlOAuth2Api', required: true }],
		properties,
	};

	methods = { loadOptions, listSearch, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
