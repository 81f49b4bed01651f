import * as n8nWorkflow from 'n8n-workflow';
import type {
	IDataObject,
	INodeExecutionData,
	IPairedItemData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

/**
 * Seam with n8n: how a failed item reaches n8n's error output (On Error → "Continue (using error output)") with the
 * fields the node gives it (a check's `decision`, `reason`, `reasons`, `alertIds`).
 *
 * Measured on: every tested n8n (test/n8nVersions.json; test/contract/errorOutput.test.ts reads each version's
 * WorkflowExecute). Not part of n8n's documented node API.
 * Relies on: n8n moves an output item to the error output when it carries `error` (the error object) or when its json
 * holds only some of `error`, `message` and `details` (2.41.1; 1.123.81 and 2.0.3: only `{error}` or
 * `{error, message}`), merging its json over its paired input item's. An item that carries `error` has its json
 * replaced by `{error: message}` first (every tested n8n): the node's fields are lost. So on an n8n whose error output
 * keeps `details` (recognised by its n8n-workflow announcing the node API level, `N8N_NODES_API_VERSION`: the
 * contract test checks that the two go together) the item leaves as `{error, details}`, `details` holding the fields
 * it has with "Continue"; on the others as before (`error` only).
 * Breaks: the item would stay on the node's own output (Block for a check: never cleared) or reach the error output
 * with `error` only; the contract test fails first.
 */

/** Whether this n8n keeps `details` beside `error` on its error output. */
export function errorOutputKeepsDetails(): boolean {
	return typeof (n8nWorkflow as unknown as IDataObject).N8N_NODES_API_VERSION === 'number';
}

/** A failed item as n8n moves it to its error output, with the item's fields where that n8n keeps them. */
export function errorOutputItem(
	json: IDataObject,
	error: NodeApiError | NodeOperationError,
	pairedItem: IPairedItemData | IPairedItemData[],
): INodeExecutionData {
	if (errorOutputKeepsDetails()) {
		return {
			json: { error: (json.error as string | undefined) ?? error.message, details: json },
			pairedItem,
		};
	}
	return { json, error, pairedItem };
}
