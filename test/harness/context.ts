import axios from 'axios';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { AxiosInstance } from 'axios';

import type { LogEntry } from '../sandbox/server';
import { DEFAULT_OWNER, login } from './n8n';
import {
	N8nClient,
	sandboxCredentialData,
	type Json,
	type NodeSpec,
	type RunOptions,
	type RunResult,
} from './client';

export {
	nodeError,
	nodeItems,
	nodeOutput,
	nodeOutputs,
	N8nClient,
	type Json,
	type NodeSpec,
	type RunOptions,
	type RunResult,
} from './client';

export interface E2EContext {
	n8n: {
		baseUrl: string;
		apiKey: string;
		logFile: string;
		userFolder: string;
		owner?: { email: string; password: string };
	};
	sandbox: {
		baseUrl: string;
		tokenUrl: string;
		controlUrl: string;
		clientId: string;
		clientSecret: string;
	};
	/** This test file's AML credential (its token URL names the file: `?c=<file>`; see `requestsSince`). */
	credential: { id: string; name: string };
	/** This test file's credential tag (`fileTag`), '' outside a test file of a project with one credential per file. */
	tag: string;
	/** The Slack stand-in (test/harness/slack.ts): `GET <url>/calls` lists the Slack calls n8n made. */
	slack: { url: string };
}

/**
 * Connection facts written by the global set-up (test/harness/global-setup.ts), as this test file sees them: its own
 * credential and a token URL naming it (`?c=<file>`), so every credential the file makes carries its tag too.
 */
export function context(): E2EContext {
	const file = process.env.AML_E2E_CONTEXT;
	if (!file) throw new Error('AML_E2E_CONTEXT is not set: run through the e2e jest project');
	const written = JSON.parse(fs.readFileSync(file, 'utf8')) as E2EContext & {
		files?: Record<string, { id: string; name: string }>;
	};
	const { files, ...c } = written;
	const tag = currentFileTag();
	const own = tag ? files?.[tag] : undefined;
	if (!own) return { ...c, tag: '' };
	return {
		...c,
		credential: own,
		tag,
		sandbox: { ...c.sandbox, tokenUrl: tokenUrlOf(c.sandbox.tokenUrl, tag) },
	};
}

/** A test file's credential tag: its name without `.test.ts` (`dataUpload.test.ts` → `dataUpload`). */
export function fileTag(fileName: string): string {
	return path.basename(fileName).replace(/\.test\.ts$/, '');
}

/** The token URL `base` with the credential tag `tag` (`?c=<tag>`; the service ignores the parameter). */
export function tokenUrlOf(base: string, tag: string): string {
	return `${base}?c=${encodeURIComponent(tag)}`;
}

/** The tag of another credential of this test file (`<file>.<key>`): its requests count as the file's own. */
export function ownTag(key: string): string {
	const { tag } = context();
	return tag ? `${tag}.${key}` : key;
}

/** The token URL of the credential `ownTag(key)` (`?c=<file>.<key>`). */
export function ownTokenUrl(key: string): string {
	return tokenUrlOf(context().sandbox.tokenUrl.split('?')[0], ownTag(key));
}

/** A sandbox fault rule's `query` (a regular expression) that matches the token requests of `ownTokenUrl(key)`. */
export function ownTokenQuery(key: string): string {
	const c = encodeURIComponent(ownTag(key)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return `(^|&)c=${c}(&|$)`;
}

/**
 * An access token from the sandbox at `tokenUrl` (default: this file's), as a client of its own: waits out the token
 * endpoint's rate limit (429 with Retry-After) for up to 20 tries.
 */
export async function sandboxToken(tokenUrl = context().sandbox.tokenUrl): Promise<string> {
	const { clientId, clientSecret } = context().sandbox;
	for (let i = 0; ; i++) {
		const r = await axios.post(tokenUrl, 'grant_type=client_credentials', {
			auth: { username: clientId, password: clientSecret },
			validateStatus: () => true,
		});
		if (r.status === 200) return r.data.access_token as string;
		if (r.status !== 429 || i >= 19) throw new Error(`token endpoint: HTTP ${r.status}`);
		await new Promise((resolve) =>
			setTimeout(resolve, Number(r.headers['retry-after'] ?? 5) * 1000),
		);
	}
}

function currentFileTag(): string {
	const testPath = (
		globalThis as { expect?: { getState(): { testPath?: string } } }
	).expect?.getState().testPath;
	return testPath ? fileTag(testPath) : '';
}

/** A request in the sandbox's log. */
export type Logged = LogEntry;

/**
 * Whether a logged request is this test file's: sent with one of its credentials (tag `<file>` or `<file>.<key>`)
 * or with none the sandbox can name (no token, an unknown token). Requests of another file's credentials (an
 * execution still running from an earlier file, a late answer) are not.
 */
export function isOwn(entry: { credential?: string }, tag = context().tag): boolean {
	const c = entry.credential;
	return !tag || c === undefined || ofCredential(c, tag);
}

/** Whether the credential tag `c` is `tag` or one of its `<tag>.<key>` credentials. */
function ofCredential(c: string | undefined, tag: string): boolean {
	return c === tag || (c?.startsWith(`${tag}.`) ?? false);
}

let shared: N8nClient | undefined;

/** The n8n client of this test file (one per jest worker module registry, so runNode reuses its workflows). */
export function n8n(): N8nClient {
	if (!shared) {
		const c = context();
		const client = new N8nClient(c.n8n.baseUrl, c.n8n.apiKey);
		client.restFallback = async (id) => {
			const made = client.madeCredentials.get(id);
			if (id && !made)
				throw new Error(`credential ${id} was not made by this client: its data is unknown`);
			return { rest: await ownerRest(), data: made ?? { type: '', data: {} } };
		};
		shared = client;
	}
	return shared;
}

/** n8n's internal REST API (`/rest`, and `/types/*.json` with `{ baseURL: '' }` and a full URL) as the owner. */
export async function ownerRest(): Promise<AxiosInstance> {
	const c = context();
	// One login per test file (jest worker) and n8n: n8n 1.x limits logins per minute (429 "Too many requests").
	const key = c.n8n.baseUrl;
	let session = ownerSessions.get(key);
	if (!session) {
		session = login(c.n8n.baseUrl, c.n8n.owner ?? DEFAULT_OWNER);
		session.catch(() => ownerSessions.delete(key));
		ownerSessions.set(key, session);
	}
	return await session;
}
const ownerSessions = new Map<string, Promise<AxiosInstance>>();

/** Node types (`/types/nodes.json`) and credential types (`/types/credentials.json`) n8n has loaded. */
export async function loadedTypes(): Promise<{ nodes: Json[]; credentials: Json[] }> {
	const rest = await ownerRest();
	const base = context().n8n.baseUrl;
	const nodes = await rest.get(`${base}/types/nodes.json`, { baseURL: '' });
	const credentials = await rest.get(`${base}/types/credentials.json`, { baseURL: '' });
	if (nodes.status !== 200 || credentials.status !== 200)
		throw new Error(`types: HTTP ${nodes.status}/${credentials.status}`);
	return { nodes: nodes.data, credentials: credentials.data };
}

/** The sandbox's control API. */
export const control = {
	async get<T = Json>(path: string, params?: Json): Promise<T> {
		return (await axios.get(`${context().sandbox.controlUrl}${path}`, { params })).data as T;
	},
	async post<T = Json>(path: string, body: Json = {}): Promise<T> {
		return (await axios.post(`${context().sandbox.controlUrl}${path}`, body)).data as T;
	},
	async del(path: string): Promise<void> {
		await axios.delete(`${context().sandbox.controlUrl}${path}`);
	},
	/** Sequence number of the last logged request, to ask later what came after it. */
	async mark(): Promise<number> {
		const log = await this.get<Array<{ seq: number }>>('/requests');
		return log.length ? log[log.length - 1].seq : 0;
	},
	/**
	 * This test file's requests after `seq` (`isOwn`: not those of another file's credentials), optionally only
	 * those to paths starting with `path` or matching it. `credential`: only those sent with that credential tag (or
	 * its `<tag>.<key>` ones, see `ownTokenUrl`), none unattributed. `all`: every logged request.
	 */
	async requestsSince(
		seq: number,
		opts: { path?: string | RegExp; credential?: string; all?: boolean } = {},
	): Promise<Logged[]> {
		const log = await this.get<Logged[]>('/requests', { since: seq });
		const { path: p } = opts;
		const tag = context().tag;
		return log.filter(
			(r) =>
				(opts.all ||
					(opts.credential !== undefined
						? ofCredential(r.credential, opts.credential)
						: isOwn(r, tag))) &&
				(p === undefined || (typeof p === 'string' ? r.path.startsWith(p) : p.test(r.path))),
		);
	},
};

/** AML node parameters for Transaction → Create from input items `{ id, personId, ...attributes }`. */
export function transactionCreateFromInput(extra: Json = {}): Json {
	return {
		resource: 'transaction',
		operation: 'create',
		personId: '={{ $json.personId }}',
		transactionId: '={{ $json.id }}',
		attributesMode: 'input',
		excludeInputFields: 'id, personId',
		...extra,
	};
}

/** AML node parameters for Custom List → Sync of input items `{ id, ...attributes }`, archiving what is missing. */
export function customListSyncFromInput(listId: string, options: Json = {}): Json {
	return {
		resource: 'customList',
		operation: 'sync',
		customListId: listId,
		recordId: '={{ $json.id }}',
		attributesMode: 'input',
		excludeInputFields: 'id',
		onMissing: 'archive',
		options,
	};
}

/** Runs the AML node (or another node) in real n8n with the given input items. */
export async function runAml(
	parameters: Json,
	items: Json[] = [{}],
	extra: Partial<NodeSpec> = {},
	opts: RunOptions = {},
): Promise<RunResult> {
	const c = context();
	return await n8n().runNode({ parameters, ...extra }, items, {
		credentials: { amlOAuth2Api: c.credential },
		...opts,
	});
}

/** Runs any node spec with the context's AML credential as default credentials. */
export async function runNode(
	node: NodeSpec,
	items: Json[] = [{}],
	opts: RunOptions = {},
): Promise<RunResult> {
	return await n8n().runNode(node, items, {
		credentials: { amlOAuth2Api: context().credential },
		...opts,
	});
}

/** An INDIVIDUAL person stored through Person → Create in real n8n, as onboarding does (`extra`: more parameters). */
export async function createPerson(
	personId: string,
	attributes: Json,
	extra: Json = {},
): Promise<RunResult> {
	return await runAml({
		resource: 'person',
		operation: 'create',
		personId,
		personType: 'INDIVIDUAL',
		attributesMode: 'json',
		attributesJson: JSON.stringify(attributes),
		...extra,
	});
}

export function amlCredentialData(overrides: Json = {}): Json {
	return sandboxCredentialData(context().sandbox, overrides);
}
