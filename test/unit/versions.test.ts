import { Aml } from '../../nodes/Aml/Aml.node';
import { AmlTrigger } from '../../nodes/AmlTrigger/AmlTrigger.node';

/**
 * Details of node versions that n8n reads from the description (the features are tested in real n8n): a new AML node
 * is version 1.2 (n8n takes the last version when defaultVersion is unset) and keeps n8n's "Custom API Call" (n8n
 * injects it only where defaultVersion is unset or equals version); a new AML Trigger is version 1.2.
 */
describe('node versions', () => {
	test('AML: versions 1, 1.1 and 1.2, no defaultVersion', () => {
		const { version, defaultVersion } = new Aml().description;
		expect(version).toEqual([1, 1.1, 1.2]);
		expect(defaultVersion).toBeUndefined();
	});

	test('AML Trigger: versions 1, 1.1, 1.2; new triggers 1.2', () => {
		const { version, defaultVersion } = new AmlTrigger().description;
		expect(version).toEqual([1, 1.1, 1.2]);
		expect(defaultVersion).toBe(1.2);
	});

	test('every parameter whose default changed with 1.1, and every ID that became a resource locator with 1.2, exists once per version, shown by version', () => {
		const byName = new Map<string, Array<{ default: unknown; versions: unknown; type: string }>>();
		for (const p of new Aml().description.properties) {
			const versions = p.displayOptions?.show?.['@version'];
			if (!versions) continue;
			const key = `${p.name}:${JSON.stringify(p.displayOptions?.show?.resource)}:${JSON.stringify(p.displayOptions?.show?.operation)}`;
			byName.set(key, [...(byName.get(key) ?? []), { default: p.default, versions, type: p.type }]);
		}
		expect(byName.size).toBeGreaterThanOrEqual(5);
		const splits = { defaults: 0, locators: 0 };
		for (const [key, variants] of byName) {
			expect({ key, count: variants.length }).toEqual({ key, count: 2 });
			const shown = variants.map((v) => JSON.stringify(v.versions)).sort();
			if (variants.some((v) => v.type === 'resourceLocator')) {
				splits.locators++;
				expect({ key, shown }).toEqual({ key, shown: ['[1,1.1]', '[{"_cnd":{"gte":1.2}}]'] });
			} else {
				splits.defaults++;
				expect({ key, shown }).toEqual({ key, shown: ['[1]', '[{"_cnd":{"gte":1.1}}]'] });
			}
		}
		expect(splits.defaults).toBeGreaterThanOrEqual(5);
		expect(splits.locators).toBeGreaterThanOrEqual(20);
	});

	test("Person operations use n8n's names while saved workflows keep their values: patch is listed as Update, update as Replace", () => {
		const operation = new Aml().description.properties.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('person'));
		const names = Object.fromEntries((operation?.options ?? []).map((o) => ['value' in o ? o.value : '', o.name]));
		expect(names.patch).toBe('Update');
		expect(names.update).toBe('Replace');
	});
});
