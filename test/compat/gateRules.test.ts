import { describeGateRules, describeSettingsRows } from '../harness/gateRules';
import { SAMPLE } from '../harness/matrix';

/**
 * n8n's node settings on the matrix's sample (one operation of each kind) and the payment gate's rule through example
 * 01, on the older supported n8n lines (test/harness/gateRules.ts).
 */
describeSettingsRows(SAMPLE);
describeGateRules();
