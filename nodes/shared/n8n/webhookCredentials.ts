import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

/**
 * Seam with n8n: a trigger's credential read during a webhook call, inside the expression isolate n8n already holds
 * for that call, instead of a new one per read.
 *
 * Measured on: every tested n8n (test/n8nVersions.json; test/contract/webhookCredentials.test.ts: n8n-core's own
 * webhook context and n8n's own credential resolution). Not part of n8n's documented node API.
 * Relies on:
 * - n8n's expression engine (`vm`, the default of n8n 2.x and the 1.123 line) gives every caller an isolate of its
 *   own, built per acquisition (about 45 ms of CPU on 2 cores). For a webhook whose node is not n8n's own Webhook node,
 *   n8n acquires one for the workflow before the node's `webhook()` runs. `this.getCredentials()` there reads the
 *   credential "runless": n8n resolves its values in a new mock workflow that acquires another isolate; the execution
 *   the delivery starts acquires a third. n8n's Webhook node with Header Auth costs two (its webhook phase needs none).
 * - The context's `_getCredentials(type, executeData, connectionInputData, itemIndex)`, when the context has a run
 *   (`runExecutionData`), passes n8n's credential helper `expressionResolveValues` with the context's own workflow,
 *   and n8n resolves the credential's values with that workflow's expression, in the isolate it already holds.
 *   Every check n8n makes before a read (the node may use this credential type, the credential is set) is the same.
 * - The run given is empty and so is the input: a credential expression cannot read the delivery (`$json` is not the
 *   request), as in n8n's runless read.
 * Breaks when n8n changes: where the method or the field is gone, or the read fails, the trigger reads through
 * `getCredentials()` as before (one isolate more per delivery, the same answer).
 */
export async function webhookCredentials<T extends object = ICredentialDataDecryptedObject>(
	ctx: IWebhookFunctions,
	type: string,
): Promise<T> {
	const context = ctx as unknown as WebhookContextInternals;
	if (typeof context._getCredentials === 'function' && context.runExecutionData == null) {
		const withRun = Object.create(ctx, {
			runExecutionData: { value: emptyRun() },
			runIndex: { value: 0 },
		}) as WebhookContextInternals;
		try {
			const data = await context._getCredentials.call(
				withRun,
				type,
				{ data: {}, node: ctx.getNode(), source: null },
				[],
				0,
			);
			if (data && typeof data === 'object') return data as T;
		} catch {
			// The read as n8n documents it below: it answers the same or fails with n8n's own error.
		}
	}
	return await ctx.getCredentials<T>(type);
}

interface WebhookContextInternals {
	runExecutionData?: unknown;
	_getCredentials?: (
		type: string,
		executeData: object,
		connectionInputData: unknown[],
		itemIndex: number,
	) => Promise<unknown>;
}

/** A run with no data, as n8n builds one to resolve a parameter outside an execution (`createEmptyRunExecutionData`). */
function emptyRun(): object {
	return { version: 1, resultData: { runData: {} } };
}
