import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The contract suite runs n8n's own implementation beside the package's seam (nodes/shared/n8n/), once per supported
 * n8n: `AML_N8N_VERSION` selects the install (scripts/install-n8n.sh, cached in ~/.cache/n8n-nodes-aml), and its own
 * n8n-workflow and n8n-core are loaded from there, not the package's devDependencies.
 */
export const N8N_VERSION = process.env.AML_N8N_VERSION ?? '2.41.1';

const cache = process.env.AML_N8N_CACHE ?? path.join(os.homedir(), '.cache', 'n8n-nodes-aml');
const modules = path.join(cache, `n8n-${N8N_VERSION}`, 'node_modules');

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
