import { NodeConnectionTypes } from 'n8n-workflow';

/**
 * The oldest n8n the package supports, and what an older one gets instead of a half-working node: n8n before 1.83
 * lacks `NodeConnectionTypes`, so both nodes fail to load with this message (n8n shows it in its log and its
 * community-nodes list) instead of a TypeError.
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
