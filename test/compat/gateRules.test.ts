import { n8n } from '../harness/context';
import { describeGateRules } from '../harness/gateRules';

/** The payment gate's rule through example 01 on the older supported n8n lines (test/harness/gateRules.ts). */
afterAll(async () => {
	await n8n().cleanup();
});

describeGateRules();
