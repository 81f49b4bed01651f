import type { INodeProperties } from 'n8n-workflow';

import { Aml } from '../../nodes/Aml/Aml.node';
import { AmlTrigger } from '../../nodes/AmlTrigger/AmlTrigger.node';
import { N8N_VERSION, n8nPackage, n8nPackageVersion, withN8n } from './n8n';

/**
 * Seam nodes/shared/n8n/displayOptions.ts, run with this n8n's own n8n-workflow: for every top-level property of
 * both nodes, in every combination of the values its panel shows it for (resource × operation × the options and
 * booleans other parameters depend on), n8n's answer equals the plain reading of `displayOptions` the package's
 * descriptions are written for (every `show` key matches, no `hide` key does). A difference means n8n changed how
 * it decides visibility, and the node's validation would check too few or too many parameters.
 */
type Seam = typeof import('../../nodes/shared/n8n/displayOptions');
const seam = withN8n<Seam>(() => require('../../nodes/shared/n8n/displayOptions'));

/** The values a parameter can take in the panel: an option's values, a boolean's two, else its default. */
function candidates(properties: INodeProperties[], name: string): unknown[] {
	const values = new Set<unknown>();
	for (const p of properties.filter((q) => q.name === name)) {
		if (p.type === 'boolean') [true, false].forEach((v) => values.add(v));
		else if (p.type === 'options')
			(p.options ?? []).forEach((o) => 'value' in o && values.add(o.value));
		else values.add(p.default);
	}
	return [...values];
}

function plainReading(property: INodeProperties, values: Record<string, unknown>): boolean {
	const { show, hide } = property.displayOptions ?? {};
	for (const [key, allowed] of Object.entries(show ?? {}))
		if (!(allowed as unknown[]).includes(values[key])) return false;
	for (const [key, denied] of Object.entries(hide ?? {}))
		if ((denied as unknown[]).includes(values[key])) return false;
	return true;
}

/** Every combination of the dependencies' candidate values (small: resource × operation × at most two more). */
function combinations(
	properties: INodeProperties[],
	keys: string[],
): Array<Record<string, unknown>> {
	return keys.reduce<Array<Record<string, unknown>>>(
		(all, key) =>
			all.flatMap((partial) =>
				candidates(properties, key).map((value) => ({ ...partial, [key]: value })),
			),
		[{}],
	);
}

describe(`display options on n8n ${N8N_VERSION} (n8n-workflow ${n8nPackageVersion('n8n-workflow')})`, () => {
	test("the seam runs with this n8n's n8n-workflow, not the package's devDependency", () => {
		const inSeam = withN8n(
			() =>
				require('n8n-workflow') as {
					contractN8nVersion?: string;
					NodeHelpers: { displayParameter: unknown };
				},
		);
		expect(inSeam.contractN8nVersion).toBe(N8N_VERSION);
		expect(String(inSeam.NodeHelpers.displayParameter)).toBe(
			String(n8nPackage('n8n-workflow').NodeHelpers.displayParameter),
		);
	});

	test.each([
		['AML', new Aml().description.properties],
		['AML Trigger', new AmlTrigger().description.properties],
	])('%s: every property in every combination its panel can show', (_node, properties) => {
		const keys = [...new Set(properties.flatMap((p) => seam.displayDependencies(p)))];
		const checked = { shown: 0, hidden: 0 };
		const differences: string[] = [];
		for (const values of combinations(properties, keys)) {
			for (const property of properties) {
				const byN8n = seam.isShown(property, { typeVersion: 1 }, (name) => values[name]);
				if (byN8n !== plainReading(property, values))
					differences.push(`${property.name} ${JSON.stringify(values)}: n8n ${byN8n}`);
				checked[byN8n ? 'shown' : 'hidden']++;
			}
		}
		expect(differences.slice(0, 10)).toEqual([]);
		expect(checked.shown).toBeGreaterThan(0);
		expect(checked.hidden).toBeGreaterThan(0);
	});
});
