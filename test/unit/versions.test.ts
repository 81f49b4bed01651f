import { Aml } from '../../nodes/Aml/Aml.node';
import { AmlTrigger } from '../../nodes/AmlTrigger/AmlTrigger.node';

/**
 * Until 0.1.0 is published each node has one version (n8n keeps saved nodes on their version, so a later change of
 * behaviour gets a new one): no version conditions anywhere in the descriptions.
 */
const conditionsOn = (value: unknown): string[] => {
	if (Array.isArray(value)) return value.flatMap(conditionsOn);
	if (value === null || typeof value !== 'object') return [];
	return Object.entries(value).flatMap(([key, entry]) => [
		...(key === '@version' || key === '_cnd' ? [key] : []),
		...conditionsOn(entry),
	]);
};

describe('node versions', () => {
	test('AML: version 1, no defaultVersion (n8n offers "Custom API Call" only where it is unset or equal)', () => {
		const { version, defaultVersion } = new Aml().description;
		expect(version).toBe(1);
		expect(defaultVersion).toBeUndefined();
	});

	test('AML Trigger: one version, 1.1 (n8n evaluates an expression on every delivery to a start node of version 1)', () => {
		const { version, defaultVersion } = new AmlTrigger().description;
		expect(version).toBe(1.1);
		expect(defaultVersion).toBeUndefined();
	});

	test('no parameter is shown by version', () => {
		expect(conditionsOn(new Aml().description.properties)).toEqual([]);
		expect(conditionsOn(new AmlTrigger().description.properties)).toEqual([]);
	});

	test('each parameter name appears once per resource and operation', () => {
		const seen = new Set<string>();
		for (const p of new Aml().description.properties) {
			const key = `${p.name}:${JSON.stringify(p.displayOptions?.show?.resource)}:${JSON.stringify(p.displayOptions?.show?.operation)}`;
			expect(seen.has(key) ? key : '').toBe('');
			seen.add(key);
		}
	});

	test('Person operations: option values match their names (Replace = replace, PUT; Update = update, PATCH)', () => {
		const operation = new Aml().description.properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('person'),
		);
		const names = Object.fromEntries(
			(operation?.options ?? []).map((o) => ['value' in o ? o.value : '', o.name]),
		);
		expect(names.replace).toBe('Replace');
		expect(names.update).toBe('Update');
		expect(names.patch).toBeUndefined();
	});
});
