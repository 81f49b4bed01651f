import { NodeConnectionTypes } from 'n8n-workflow';

/**
 * Seam with n8n: the oldest n8n the package supports, and what an older one gets instead of a half-working node.
 *
 * Relies on: n8n-workflow's `NodeConnectionTypes` (from n8n 1.83; before it, connection types were plain strings).
 * n8n before 1.83 lacks it, so both nodes fail to load with this message (n8n shows it in its log and its
 * community-nodes list) instead of a TypeError.
 * Measured on: every tested n8n (test/n8nVersions.json; the nodes load: test/e2e, test/compat); an n8n-workflow
 * without it (test/unit/n8nSupport.test.ts).
 */
export const SUPPORTED_N8N = 'n8n 1.123 or later (1.x), or 2.0 or later';

function mainConnection(): 'main' {
	if (NodeConnectionTypes === undefined) {
		throw new Error(
			`n8n-nodes-aml needs ${SUPPORTED_N8N}: this n8n is older than 1.83 (it lacks NodeConnectionTypes). Update n8n to use the AML nodes`,
		);
	}
	return NodeConnectionTypes.Main;
}

/** The main connection type of both nodes' inputs and outputs. */
export const MAIN_CONNECTION = mainConnection();
