import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * Seam with n8n: the bytes of a webhook request as they arrived, for signature checks.
 *
 * Measured on: every tested n8n (test/n8nVersions.json; test/contract/webhookRequest.test.ts: each n8n's own
 * body-parser middleware on real HTTP requests). Not part of n8n's documented node API.
 * Relies on: n8n's body parser keeps the request body's bytes as `req.rawBody` (a Buffer) before it parses JSON, for
 * every content type except multipart, and offers `req.readRawBody()` to read them when that has not happened yet.
 * Breaks: without the bytes every HMAC-signed delivery fails its check (answered 401, starts nothing: fail closed);
 * bytes altered by n8n would fail it too.
 */
type WebhookRequest = ReturnType<IWebhookFunctions['getRequestObject']>;

/** The request body exactly as received; undefined when the bytes are gone (multipart). */
export async function rawBodyOf(req: WebhookRequest): Promise<Buffer | undefined> {
	if (
		!Buffer.isBuffer(req.rawBody) &&
		typeof req.readRawBody === 'function' &&
		!req.contentType?.startsWith('multipart/')
	) {
		try {
			await req.readRawBody();
		} catch {
			return undefined;
		}
	}
	return Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
}
