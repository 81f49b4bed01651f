/**
 * On an n8n older than 1.83, n8n-workflow has no `NodeConnectionTypes`: both nodes must fail to load with a message
 * naming the supported n8n (what n8n shows for a package that fails to load), not with a TypeError.
 * A detail test: n8n-workflow is replaced by a copy without `NodeConnectionTypes`, as such an n8n provides it.
 */
describe('loading on an n8n without NodeConnectionTypes (before 1.83)', () => {
	afterEach(() => {
		jest.resetModules();
		jest.dontMock('n8n-workflow');
	});

	test.each([
		['AML', '../../nodes/Aml/Aml.node'],
		['AML Trigger', '../../nodes/AmlTrigger/AmlTrigger.node'],
	])('%s fails to load, naming the supported n8n', (_name, modulePath) => {
		jest.doMock('n8n-workflow', () => ({
			...jest.requireActual('n8n-workflow'),
			NodeConnectionTypes: undefined,
		}));
		expect(() => jest.isolateModules(() => require(modulePath))).toThrow(
			/^n8n-nodes-aml needs n8n 1\.123 or later \(1\.x\), or 2\.0 or later: this n8n is older than 1\.83/,
		);
	});

	test('with NodeConnectionTypes both nodes load, with main inputs/outputs', () => {
		jest.isolateModules(() => {
			const { Aml } = require('../../nodes/Aml/Aml.node');
			const { AmlTrigger } = require('../../nodes/AmlTrigger/AmlTrigger.node');
			expect(new Aml().description.inputs).toEqual(['main']);
			expect(new AmlTrigger().description.outputs).toEqual(['main']);
		});
	});
});
