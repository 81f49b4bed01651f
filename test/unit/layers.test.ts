import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The AML node's import graph points one way: node → router → actions (and methods) → helpers → validation →
 * transport. A lower layer never imports an upper one, so each can be read and tested without those above it.
 * Reads every import of the TypeScript sources under nodes/Aml as text.
 */
const root = path.resolve(__dirname, '..', '..', 'nodes', 'Aml');

const LAYERS = ['transport', 'validation', 'helpers', 'actions', 'router', 'node'] as const;
type Layer = (typeof LAYERS)[number];

function layerOf(file: string): Layer | undefined {
	const relative = path.relative(root, file).split(path.sep).join('/');
	if (relative === 'Aml.node.ts') return 'node';
	if (relative === 'actions/router.ts') return 'router';
	const [folder] = relative.split('/');
	if (folder === 'actions' || folder === 'methods') return 'actions';
	if (folder === 'helpers' || folder === 'validation' || folder === 'transport') return folder;
	return undefined;
}

function sources(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sources(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

/** The relative modules a file imports or re-exports (static, type-only and dynamic), resolved to files. */
function importsOf(file: string): string[] {
	const text = fs.readFileSync(file, 'utf8');
	const specifiers = [
		...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gms),
		...text.matchAll(/\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
	].map((match) => match[1]);
	return specifiers
		.filter((specifier) => specifier.startsWith('.'))
		.map((specifier) => {
			const base = path.resolve(path.dirname(file), specifier);
			const found = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) =>
				fs.existsSync(candidate),
			);
			if (!found)
				throw new Error(
					`${path.relative(root, file)} imports ${specifier}, which is not a file under nodes/Aml`,
				);
			return found;
		});
}

const files = sources(root);
const name = (file: string) => path.relative(root, file).split(path.sep).join('/');

describe('layers of nodes/Aml', () => {
	test('every source file belongs to a layer', () => {
		expect(files.length).toBeGreaterThan(40);
		expect(files.filter((file) => layerOf(file) === undefined).map(name)).toEqual([]);
	});

	test('no import points from a lower layer to an upper one', () => {
		const upward = files.flatMap((file) =>
			importsOf(file)
				.filter(
					(target) =>
						LAYERS.indexOf(layerOf(target) as Layer) > LAYERS.indexOf(layerOf(file) as Layer),
				)
				.map((target) => `${name(file)} (${layerOf(file)}) → ${name(target)} (${layerOf(target)})`),
		);
		expect(upward).toEqual([]);
	});

	test('the reading of imports finds the graph (detail: what the check above relies on)', () => {
		const router = files.find((file) => name(file) === 'actions/router.ts') as string;
		const node = files.find((file) => name(file) === 'Aml.node.ts') as string;
		expect(importsOf(node).map(name)).toEqual(
			expect.arrayContaining(['actions/router.ts', 'actions/outputs.ts', 'methods/index.ts']),
		);
		expect(importsOf(router).map(name)).toEqual(
			expect.arrayContaining([
				'helpers/itemParameter.ts',
				'validation/index.ts',
				'actions/person/index.ts',
			]),
		);
		expect(layerOf(router)).toBe('router');
	});
});

const nodesRoot = path.resolve(__dirname, '..', '..', 'nodes');
const relativeToNodes = (file: string) => path.relative(nodesRoot, file).split(path.sep).join('/');
const allImports = (dir: string) =>
	sources(dir).flatMap((file) =>
		importsOf(file).map((target) => [relativeToNodes(file), relativeToNodes(target)] as const),
	);

describe('between the nodes, the resources and the seam', () => {
	test('the AML Trigger imports nothing of the AML node (what both use is in nodes/shared)', () => {
		expect(
			allImports(path.join(nodesRoot, 'AmlTrigger')).filter(([, target]) =>
				target.startsWith('Aml/'),
			),
		).toEqual([]);
	});

	test('the AML node imports nothing of the trigger', () => {
		expect(allImports(root).filter(([, target]) => target.startsWith('AmlTrigger/'))).toEqual([]);
	});

	test('the seam (nodes/shared/n8n) imports nothing of either node', () => {
		const seam = path.join(nodesRoot, 'shared', 'n8n');
		expect(allImports(seam).filter(([, target]) => !target.startsWith('shared/'))).toEqual([]);
	});

	test("no resource imports another resource's files (what two resources share lives in helpers/)", () => {
		const resourceOf = (file: string) => /^Aml\/actions\/([^/]+)\//.exec(file)?.[1];
		const across = allImports(path.join(root, 'actions')).filter(([file, target]) => {
			const from = resourceOf(file);
			const to = resourceOf(target);
			return from !== undefined && to !== undefined && from !== to;
		});
		expect(across).toEqual([]);
	});
});
