import type { INode, INodeType, INodeTypes } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { Aml } from '../../nodes/Aml/Aml.node';
import { AmlTrigger } from '../../nodes/AmlTrigger/AmlTrigger.node';

/** The canvas subtitle as n8n's editor computes it: the node type's `subtitle` expression over the node's parameters. */
function subtitle(type: INodeType, parameters: INode['parameters']): unknown {
	const node: INode = {
		id: '1',
		name: 'node',
		type: `n8n-nodes-aml.${type.description.name}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const nodeTypes: INodeTypes = {
		getByName: () => type,
		getByNameAndVersion: () => type,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.expression.getSimpleParameterValue(
		node,
		type.description.subtitle as string,
		'internal',
		{},
	);
}

describe('canvas subtitles show the names the user picked, not the stored values', () => {
	test.each([
		[{ resource: 'transaction', operation: 'gate' }, 'Gate: Transaction'],
		[
			{ resource: 'transaction', operation: 'runMonitoringCheck' },
			'Run Monitoring Check: Transaction',
		],
		[{ resource: 'customList', operation: 'update' }, 'Replace: Custom List Record'],
		[{ resource: 'dataUpload', operation: 'upload' }, 'Upload CSV: Data Upload'],
	])('AML %j → %s', (parameters, shown) => {
		expect(subtitle(new Aml(), parameters)).toBe(shown);
	});

	test('every operation of every resource has its name', () => {
		const aml = new Aml();
		for (const property of aml.description.properties.filter((p) => p.name === 'operation'))
			for (const resource of property.displayOptions!.show!.resource as string[])
				for (const option of property.options as Array<{ name: string; value: string }>)
					expect(subtitle(aml, { resource, operation: option.value })).toMatch(
						new RegExp(`^${option.name.replace(/[()]/g, '\\$&')}: `),
					);
	});

	test.each([
		[['ALERT_CREATED', 'SCREENING_ALERT_CREATED'], 'Alert Created, Screening Alert Created'],
		[['*'], 'All Events'],
		[['ALERT_CREATED', 'PERSON_CLEARED'], 'Alert Created, PERSON_CLEARED'],
	])('AML Trigger events %j → %s', (events, shown) => {
		expect(subtitle(new AmlTrigger(), { events })).toBe(shown);
	});
});

describe('hints fit under their field', () => {
	test('every hint of both nodes (tool hints included) is at most 120 characters', () => {
		const long: string[] = [];
		const walk = (properties: unknown[], where: string) => {
			for (const property of properties as Array<Record<string, unknown>>) {
				const at = `${where}/${String(property.name ?? property.displayName)}`;
				if (typeof property.hint === 'string' && property.hint.length > 120)
					long.push(`${at} (${property.hint.length}): ${property.hint}`);
				for (const key of ['options', 'values'])
					if (Array.isArray(property[key])) walk(property[key] as unknown[], at);
			}
		};
		walk(new Aml().description.properties, 'AML');
		walk(new AmlTrigger().description.properties, 'AML Trigger');
		expect(long).toEqual([]);
	});

	test('the trigger starts on Alert Created by default; Decision Rule Names is an option with its explanation', () => {
		const properties = new AmlTrigger().description.properties;
		expect(properties.find((p) => p.name === 'events')?.default).toEqual(['ALERT_CREATED']);
		expect(properties.find((p) => p.name === 'decisionRules')).toBeUndefined();
		const options = properties.find((p) => p.name === 'options')!.options as Array<{
			name: string;
			description?: string;
		}>;
		expect(options.find((o) => o.name === 'decisionRules')?.description).toMatch(
			/decision rule.*web UI/i,
		);
	});
});
