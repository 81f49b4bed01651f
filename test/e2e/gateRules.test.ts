import { describeGateRules, describeSettingsRows } from '../harness/gateRules';
import { OPERATIONS } from '../harness/matrix';

/**
 * n8n's node settings on every operation of the fault matrix's table, then the payment gate's rule through example 01
 * (test/harness/gateRules.ts), in real n8n.
 */
describeSettingsRows(OPERATIONS);
describeGateRules();
