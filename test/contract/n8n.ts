import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';

import { ensureN8nInstalled } from '../harness/n8n';
import { N8N_VERSION } from '../harness/n8nVersions';

let n8nNode: string | undefined;

/**
 * The contract suite runs n8n's own implementation beside the package's seam (nodes/shared/n8n/), once per tested
 * n8n (test/n8nVersions.json): `AML_N8N_VERSION` selects the install (scripts/install-n8n.sh, cached in
 * ~/.cache/n8n-nodes-aml), and its own n8n-workflow and n8n-core are loaded from there, not the package's
 * devDependencies.
 */
export { N8N_VERSION };

const cache = process.env.AML_N8N_CACHE ?? path.join(os.homedir(), '.cache', 'n8n-nodes-aml');
const modules = path.join(cache, `n8n-${N8N_VERSION}`, 'node_modules');

/** The selected n8n install's node_modules folder. */
export const n8nModules = () => modules;

/** A package of the selected n8n install (resolved from n8n's own node_modules). */
export function n8nPackage<T = any>(name: 'n8n-workflow' | 'n8n-core'): T {
	return require(require.resolve(name, { paths: [modules] })) as T;
}

/** A dependency of the selected n8n's n8n-core, as n8n-core resolves it (e.g. its OAuth2 client). */
export function n8nCoreDependency<T = any>(name: string): T {
	const core = path.dirname(require.resolve('n8n-core/package.json', { paths: [modules] }));
	return require(require.resolve(name, { paths: [core] })) as T;
}

/** Whether a text occurs in the compiled n8n-core of the selected n8n (how a behaviour is recognised there). */
export function n8nCoreContains(text: string, pkg: 'n8n-core' | 'n8n' = 'n8n-core'): boolean {
	const core = path.dirname(require.resolve(`${pkg}/package.json`, { paths: [modules] }));
	const walk = (dir: string): boolean =>
		fs.readdirSync(dir, { withFileTypes: true }).some((entry) => {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) return walk(full);
			return entry.name.endsWith('.js') && fs.readFileSync(full, 'utf8').includes(text);
		});
	return walk(path.join(core, 'dist'));
}

/** The version of a package in the selected n8n install. */
export function n8nPackageVersion(name: 'n8n-workflow' | 'n8n-core'): string {
	return (
		require(require.resolve(`${name}/package.json`, { paths: [modules] })) as { version: string }
	).version;
}

/**
 * Loads a module of the package with `n8n-workflow` (and `n8n-core`) resolved to the selected n8n's own copies, as n8n
 * does when it loads a community package.
 */
export function withN8n<T>(load: () => T): T {
	let loaded: T | undefined;
	jest.isolateModules(() => {
		// A copy of its exports, marked with the version, so a test can see which n8n-workflow the package received.
		const workflow = { ...n8nPackage<object>('n8n-workflow'), contractN8nVersion: N8N_VERSION };
		jest.doMock('n8n-workflow', () => workflow);
		loaded = load();
	});
	return loaded as T;
}

/**
 * This n8n's `getRequestHelperFunctions` (its n8n-core): the helpers n8n gives a node, `httpRequestWithAuthentication`
 * among them, built the way n8n builds them for an execution.
 */
export function n8nRequestHelpers(): (
	workflow: object,
	node: object,
	additionalData: object,
) => any {
	const core = path.dirname(require.resolve('n8n-core/package.json', { paths: [modules] }));
	return require(
		path.join(
			core,
			'dist/execution-engine/node-execution-context/utils/request-helper-functions.js',
		),
	).getRequestHelperFunctions;
}

/** The AML node as n8n hands it to a node's helpers (its credential named when `credentials` is given). */
export function amlNode(credentials?: Record<string, { id: string; name: string }>) {
	return {
		id: 'n1',
		name: 'AML',
		type: 'n8n-nodes-aml.aml',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
		...(credentials ? { credentials } : {}),
	};
}

/**
 * The context n8n gives the AML node for an OAuth2 (client credentials) credential whose token endpoint is
 * `${baseUrl}/oauth/token`, with this n8n's real request helpers. The credential's stored token lives in `store`, as
 * in n8n's database: `getCredentials` reads it, n8n's `updateCredentialsOauthTokenData` writes it (and `onStore` is
 * told). Without `token` the credential holds none (n8n fetches one before the first request).
 */
export function oauth2NodeContext(
	baseUrl: string,
	opts: { token?: string; secret?: string; onStore?: () => void; cancelSignal?: AbortSignal } = {},
) {
	const node = amlNode({ amlOAuth2Api: { id: '1', name: 'AML' } });
	const store: { tokenData?: Record<string, unknown> } = {
		tokenData: opts.token ? { access_token: opts.token, token_type: 'Bearer' } : undefined,
	};
	const additionalData = {
		credentialsHelper: {
			getParentTypes: () => ['oAuth2Api'],
			updateCredentialsOauthTokenData: async (
				_node: unknown,
				_type: string,
				credentials: { oauthTokenData?: Record<string, unknown> },
			) => {
				store.tokenData = credentials.oauthTokenData;
				opts.onStore?.();
			},
			runPreAuthentication: async () => undefined,
			preAuthentication: async () => undefined,
		},
	};
	const getCredentials = async () => ({
		grantType: 'clientCredentials',
		clientId: 'client',
		clientSecret: opts.secret ?? 'client-secret',
		accessTokenUrl: `${baseUrl}/oauth/token`,
		authentication: 'body',
		...(store.tokenData ? { oauthTokenData: { ...store.tokenData } } : {}),
	});
	// n8n 2.x after 2.0.3 reads the credential again from its database before a renewal (under a lock).
	Object.assign(additionalData.credentialsHelper, { getDecrypted: getCredentials });
	const helpers = n8nRequestHelpers()({ id: 'w1' }, node, additionalData);
	const quiet = () => undefined;
	return {
		store,
		getNode: () => node,
		getMode: () => 'trigger',
		logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
		getCredentials,
		helpers,
		// an execution's context has one (n8n hands it to the HTTP client); a load-options context has none
		...(opts.cancelSignal ? { getExecutionCancelSignal: () => opts.cancelSignal } : {}),
	};
}

/**
 * A seam file (nodes/shared/n8n/<name>.ts) compiled as it is to CommonJS in a folder of its own, for a script run by
 * `inN8nProcess`; its path. The file imports only types from n8n-workflow, so it loads without the package.
 */
export function compiledSeam(name: string): string {
	const ts = require('typescript') as typeof import('typescript');
	const source = fs.readFileSync(
		path.join(__dirname, '..', '..', 'nodes', 'shared', 'n8n', `${name}.ts`),
		'utf8',
	);
	const js = ts.transpileModule(source, {
		compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2021 },
	}).outputText;
	const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'aml-seam-')), `${name}.js`);
	fs.writeFileSync(file, js);
	return file;
}

/**
 * Runs `script` (CommonJS, given `input` parsed from JSON, printing its result as JSON) with the Node n8n runs on, in
 * the selected n8n install, where its own `n8n` package resolves: for n8n modules jest cannot load (ES modules among
 * their imports), and native ones built for that Node (isolated-vm, n8n's expression engine). Each run has an n8n user
 * folder of its own: n8n-core writes its settings file there when it loads, and processes that start together on a
 * new machine would otherwise read each other's half-written ~/.n8n/config. A run that fails throws the child's own
 * error text (its exit or signal, the end of its stderr and its last output line), not the script. A script that
 * starts n8n's isolated expression engine disposes it before it exits, as n8n does on shutdown (otherwise isolated-vm
 * can crash the process in its teardown, after the output). Even so, under load isolated-vm sometimes ends the process
 * with SIGSEGV in its teardown after the script printed its whole result: a result line printed before such an end is
 * the script's result (what it measured was done); a crash before it fails the run.
 */
export function inN8nProcess<T>(script: string, input: unknown): T {
	const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
	n8nNode ??= ensureN8nInstalled().node;
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-contract-n8n-'));
	const timeoutMs = 300_000;
	try {
		const run = spawnSync(
			n8nNode,
			['-e', `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n${script}`],
			{
				cwd: path.dirname(modules),
				input: JSON.stringify(input),
				encoding: 'utf8',
				timeout: timeoutMs,
				maxBuffer: 64 * 1024 * 1024,
				env: { ...process.env, N8N_USER_FOLDER: userFolder },
			},
		);
		const last = `${run.stdout ?? ''}`.trim().split('\n').pop() ?? '';
		if (!run.error && run.signal === 'SIGSEGV' && completeJson(last)) {
			console.warn(`n8n ${N8N_VERSION}'s Node ended with SIGSEGV after the script's result: taken`);
			return JSON.parse(last) as T;
		}
		if (run.error || run.status !== 0) {
			const how = run.error
				? `${run.error.message}${run.signal ? ` (${run.signal}, limit ${timeoutMs / 1000} s)` : ''}`
				: `exit ${run.status}${run.signal ? `, ${run.signal}` : ''}`;
			const said = `${run.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n');
			const printed = `${run.stdout ?? ''}`.trim().split('\n').pop()?.slice(0, 2000) ?? '';
			throw new Error(
				`The script in n8n ${N8N_VERSION}'s Node failed: ${how}\nstderr: ${said || '(empty)'}\nlast output: ${printed || '(none)'}`,
			);
		}
		return JSON.parse(run.stdout.trim().split('\n').pop() ?? 'null') as T;
	} finally {
		fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

/**
 * A local OAuth2 token endpoint (`/oauth/token`) and service (every other path, answered by `service`) for n8n's real
 * request path. The endpoint issues `<prefix>-N` tokens (N counts them, `issued()`), after `lateMs` if given, and
 * drops the connection while `drop()` says so; `onToken` is told of each token request.
 */
export async function oauth2Server(
	service: (req: IncomingMessage, res: ServerResponse) => void,
	token: {
		prefix: string;
		lateMs?: number;
		drop?: () => boolean;
		onToken?: () => void;
		/** The tokens' `expires_in` (seconds; default 3600). */
		expiresIn?: number;
	},
) {
	let issued = 0;
	const { scriptedServer } =
		require('../unit/realHttpContext') as typeof import('../unit/realHttpContext');
	const server = await scriptedServer((req, _body, res) => {
		if (!(req.url ?? '').startsWith('/oauth/token')) return service(req, res);
		token.onToken?.();
		if (token.drop?.()) return void req.socket.destroy();
		const answer = JSON.stringify({
			access_token: `${token.prefix}-${++issued}`,
			token_type: 'Bearer',
			expires_in: token.expiresIn ?? 3600,
		});
		const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
		if (token.lateMs) setTimeout(send, token.lateMs);
		else send();
	});
	return { ...server, issued: () => issued };
}

/** A row of n8n's processed_data table, as its repository reads and writes it. */
type ProcessedRow = { workflowId: string; context: string; [field: string]: unknown };

/**
 * This n8n's deduplication store as a node's `execute` gets it (`getDeduplicationHelperFunctions` of its n8n-core over
 * its n8n's own `DeduplicationHelper`), with the database table (n8n's ProcessedDataRepository) in memory: each read and write takes `latencyMs` (a
 * database round trip), and an insert of a row that exists fails as on the table's unique key.
 */
export async function n8nDeduplicationHelpers(
	latencyMs = 5,
): Promise<(workflow: object, node: object) => any> {
	const n8nDir = path.dirname(require.resolve('n8n/package.json', { paths: [modules] }));
	const core = path.dirname(require.resolve('n8n-core/package.json', { paths: [modules] }));
	const { Container } = require(require.resolve('@n8n/di', { paths: [n8nDir] }));
	// n8n's DeduplicationHelper takes only the repository's class from @n8n/db (whose other modules jest cannot load
	// on every version): a class of the same name stands for it, and the table behind it is the one below.
	class ProcessedDataRepository {}
	jest.doMock(require.resolve('@n8n/db', { paths: [n8nDir] }), () => ({ ProcessedDataRepository }));
	const rows: ProcessedRow[] = [];
	const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
	const roundTrip = () => new Promise((resolve) => setTimeout(resolve, latencyMs));
	const at = (where: { workflowId: string; context: string }) =>
		rows.findIndex((r) => r.workflowId === where.workflowId && r.context === where.context);
	Container.set(ProcessedDataRepository, {
		async findOne({ where }: { where: ProcessedRow }) {
			await roundTrip();
			return at(where) < 0 ? null : copy(rows[at(where)]);
		},
		async insert(row: ProcessedRow) {
			await roundTrip();
			if (at(row) >= 0) throw new Error('UNIQUE constraint failed: processed_data');
			rows.push(copy(row));
		},
		async update(where: ProcessedRow, row: ProcessedRow) {
			await roundTrip();
			// as a database's UPDATE: a row deleted meanwhile stays deleted
			if (at(where) >= 0) rows[at(where)] = copy(row);
		},
		async delete(where: ProcessedRow) {
			await roundTrip();
			if (at(where) >= 0) rows.splice(at(where), 1);
		},
	});
	const { DeduplicationHelper } = require(
		path.join(n8nDir, 'dist/deduplication/deduplication-helper.js'),
	);
	const { DataDeduplicationService } = require(
		path.join(core, 'dist/data-deduplication-service.js'),
	);
	await DataDeduplicationService.init(new DeduplicationHelper());
	return require(
		path.join(
			core,
			'dist/execution-engine/node-execution-context/utils/deduplication-helper-functions.js',
		),
	).getDeduplicationHelperFunctions;
}

/**
 * n8n-core's real ExecuteContext of this n8n for one node of `nodeType` with `parameters`, its input `items`, in a
 * workflow of this n8n's n8n-workflow (expressions evaluated by it): what a node's `execute` gets as `this`.
 */
export function n8nExecuteContext(
	nodeType: { description: { name: string; version: number | number[] } },
	parameters: Record<string, unknown>,
	items: Array<{ json: Record<string, unknown> }>,
): any {
	const workflowPkg = n8nPackage('n8n-workflow');
	const core = path.dirname(require.resolve('n8n-core/package.json', { paths: [modules] }));
	// 2.0.3's ExecuteContext loads @langchain/core, which requires the ES module p-retry (jest loads only CommonJS):
	// a stand-in, never called by getNodeParameter.
	const pRetry = path.join(core, 'node_modules', 'p-retry', 'index.js');
	if (fs.existsSync(pRetry)) jest.doMock(pRetry, () => ({ __esModule: true, default: undefined }));
	const { ExecuteContext } = require(
		path.join(core, 'dist/execution-engine/node-execution-context/execute-context.js'),
	);
	const node = {
		id: 'n1',
		name: 'AML',
		type: `n8n-nodes-aml.${nodeType.description.name}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const workflow = new workflowPkg.Workflow({
		id: 'w1',
		name: 'contract',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => nodeType,
			getByNameAndVersion: () => nodeType,
			getKnownTypes: () => ({}),
		},
	});
	const workflowNode = workflow.getNode('AML');
	const runExecutionData = { resultData: { runData: {} }, executionData: undefined };
	const executeData = { node: workflowNode, data: { main: [items] }, source: null };
	const additionalData = {
		timezone: 'UTC',
		executionId: '1',
		variables: {},
		restApiUrl: '',
		instanceBaseUrl: '',
	};
	return new ExecuteContext(
		workflow,
		workflowNode,
		additionalData,
		'manual',
		runExecutionData,
		0,
		items,
		{ main: [items] },
		executeData,
		[],
	);
}

/** Stops what n8n-core's ExecuteContext started in this process (1.x and 2.0 keep an SSH clean-up timer running). */
export function stopN8nTimers(): void {
	const core = path.dirname(require.resolve('n8n-core/package.json', { paths: [modules] }));
	const { Container } = require(require.resolve('@n8n/di', { paths: [core] }));
	const { SSHClientsManager } = require(
		path.join(core, 'dist/execution-engine/ssh-clients-manager.js'),
	);
	Container.get(SSHClientsManager).onShutdown();
}

/** A line that is one whole JSON object (a result printed to its end). */
function completeJson(line: string): boolean {
	try {
		const value: unknown = JSON.parse(line);
		return value !== null && typeof value === 'object';
	} catch {
		return false;
	}
}
