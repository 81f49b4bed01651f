import type { INode, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { Aml, properties as listed } from '../../nodes/Aml/Aml.node';
import { mergeOperationCopies } from '../../nodes/Aml/helpers/descriptions';

/**
 * The AML node's panel lists each shared field once for all the operations that show it (`mergeOperationCopies`):
 * n8n walks every property each time it builds a workflow. Checked here: every operation shows the same fields in the
 * same order, and n8n's own `getNodeParameters` and `getNodeParametersIssues` answer the same for every operation
 * and every value of the fields that show others (attribute modes, Return All, …).
 */
const description = new Aml().description as INodeTypeDescription;
const merged = description.properties;
const AML_NODE = { id: 'n', name: 'AML', type: 'n8n-nodes-aml.aml', typeVersion: 1 };
const show = (p: INodeProperties) =>
	(p.displayOptions?.show ?? {}) as Record<string, unknown[] | undefined>;

/** Every resource/operation of the panel. */
const views: Array<[string, string]> = [];
for (const p of listed)
	for (const resource of show(p).resource ?? [])
		for (const operation of show(p).operation ?? [])
			if (!views.some(([r, o]) => r === resource && o === operation))
				views.push([resource as string, operation as string]);

/** A property as the panel shows it for one operation: its operation list left out. */
const asShown = (p: INodeProperties) => {
	const { operation: _operation, ...rest } = show(p);
	return JSON.stringify({ ...p, displayOptions: { ...p.displayOptions, show: rest } });
};
const canShow = (p: INodeProperties, resource: string, operation: string) =>
	(!show(p).resource || show(p).resource!.includes(resource)) &&
	(!show(p).operation || show(p).operation!.includes(operation));

describe('the AML node lists each shared field once', () => {
	test('far fewer properties than operations list, none lost', () => {
		expect(listed.length).toBeGreaterThan(180);
		expect(merged.length).toBeLessThan(listed.length * 0.6);
		// merging is stable: nothing left to merge
		expect(mergeOperationCopies(merged)).toHaveLength(merged.length);
	});

	test.each(views)('%s → %s: the same fields in the same order', (resource, operation) => {
		const fields = (list: INodeProperties[]) =>
			list.filter((p) => canShow(p, resource, operation)).map(asShown);
		expect(fields(merged)).toEqual(fields(listed));
	});

	test.each(views)(
		"%s → %s: n8n's getNodeParameters and parameter issues answer the same, for every value of every field others depend on",
		(resource, operation) => {
			const dependent = new Map<string, unknown[]>();
			for (const p of listed.filter((q) => canShow(q, resource, operation)))
				for (const [name, values] of Object.entries(show(p)))
					if (name !== 'resource' && name !== 'operation' && Array.isArray(values))
						dependent.set(name, [...new Set([...(dependent.get(name) ?? []), ...values])]);
			const settings: Array<Record<string, unknown>> = [{}];
			for (const [name, values] of dependent)
				for (const value of values) settings.push({ [name]: value });
			for (const setting of settings) {
				const parameters = { resource, operation, ...setting } as INode['parameters'];
				const node: INode = { ...AML_NODE, position: [0, 0], parameters };
				const of = (list: INodeProperties[]) => ({
					parameters: NodeHelpers.getNodeParameters(
						list,
						parameters,
						true,
						false,
						node,
						description,
					),
					issues: NodeHelpers.getNodeParametersIssues(list, node, description),
				});
				expect({ setting, ...of(merged) }).toEqual({ setting, ...of(listed) });
			}
		},
	);
});
