import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'fs';
import { join } from 'path';

/**
 * What a user meets in the editor, read from the package as `npm run build` builds it (tsc with the package's
 * tsconfig.json, then gulp's build:assets for icons and codex files), built by this test into a folder of its own:
 * it never reads dist/, so it needs no build before it and cannot pass on a stale one. Collection buttons say
 * "Add …" as n8n's own nodes do, every documentation link of a node or credential ends in a heading README.md has
 * (GitHub's anchor rules), and every operation's action names its object.
 */
const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	homepage: string;
	n8n: { nodes: string[]; credentials: string[] };
};

// Inside node_modules, so that the built files resolve n8n-workflow as dist/ does.
const scratch = join(root, 'node_modules', '.cache', 'n8n-nodes-aml-built');
mkdirSync(scratch, { recursive: true });
const out = mkdtempSync(join(scratch, 'dist-'));
execFileSync(
	process.execPath,
	[require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json', '--outDir', out],
	{ cwd: root, stdio: 'inherit' },
);
execFileSync(
	process.execPath,
	[join(root, 'node_modules', 'gulp', 'bin', 'gulp.js'), 'build:assets', '--silent'],
	{
		cwd: root,
		stdio: 'inherit',
		env: { ...process.env, AML_BUILD_OUT: out },
	},
);
afterAll(() => rmSync(out, { recursive: true, force: true }));

type Description = {
	displayName: string;
	properties: Array<Record<string, unknown>>;
	documentationUrl?: string;
};

/** A file package.json names under dist/, in this test's build. */
const built = (file: string): string => join(out, file.replace(/^dist\//, ''));

/** The node or credential class of a built file, instantiated. */
function load(file: string): { description?: Description } & Partial<Description> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const module = require(built(file)) as Record<string, new () => object>;
	// the class is exported under the file's name (Aml.node.js: Aml)
	const Class = module[file.replace(/^.*\//, '').replace(/\..*$/, '')];
	return new Class() as { description?: Description } & Partial<Description>;
}

const nodes = pkg.n8n.nodes.map((file) => ({ file, description: load(file).description! }));
const credentials = pkg.n8n.credentials.map((file) => ({ file, credential: load(file) }));

/** GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` dropped, spaces to `-`; repeats get -1, -2, … */
export function githubAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const counts = new Map<string, number>();
	let fenced = false;
	for (const line of markdown.split('\n')) {
		if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
		const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (!heading) continue;
		const text = heading[1]
			.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
			.replace(/<[^>]+>/g, '')
			.replace(/[`*]/g, '');
		const slug = text
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
			.replace(/\s/g, '-');
		const n = counts.get(slug) ?? 0;
		counts.set(slug, n + 1);
		anchors.add(n === 0 ? slug : `${slug}-${n}`);
	}
	return anchors;
}

const readmeAnchors = githubAnchors(readFileSync(join(root, 'README.md'), 'utf8'));
const repository = pkg.homepage.replace(/#.*$/, '');

/** Every documentation URL of the package: credentials' documentationUrl and the codex files' resources. */
function documentationUrls(): Array<[string, string]> {
	const urls: Array<[string, string]> = credentials.map(({ file, credential }) => [
		file,
		String(credential.documentationUrl),
	]);
	const walk = (folder: string): void => {
		for (const entry of readdirSync(folder, { withFileTypes: true })) {
			const path = join(folder, entry.name);
			if (entry.isDirectory()) walk(path);
			else if (entry.name.endsWith('.node.json')) {
				const codex = JSON.parse(readFileSync(path, 'utf8')) as {
					resources?: Record<string, Array<{ url: string }>>;
				};
				for (const links of Object.values(codex.resources ?? {}))
					for (const { url } of links) urls.push([`dist/${path.slice(out.length + 1)}`, url]);
			}
		}
	};
	walk(built('dist/nodes'));
	return urls;
}

/** Every object of a description (properties, options, collections' fields), with where it sits. */
function* walk(value: unknown, path: string): Generator<[string, Record<string, unknown>]> {
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) yield* walk(value[i], `${path}[${i}]`);
		return;
	}
	if (!value || typeof value !== 'object') return;
	const object = value as Record<string, unknown>;
	yield [path, object];
	for (const [key, child] of Object.entries(object)) yield* walk(child, `${path}.${key}`);
}

describe('built descriptions (the package as npm run build builds it)', () => {
	test('every node and credential of package.json is built', () => {
		expect(nodes.map(({ description }) => description.displayName)).toEqual(['AML', 'AML Trigger']);
		expect(credentials).toHaveLength(2);
	});

	test('no placeholder or text says "e.g. Add": a collection button reads "Add …"', () => {
		const found: string[] = [];
		for (const { description } of nodes)
			for (const [path, object] of walk(description.properties, description.displayName))
				if (typeof object.placeholder === 'string' && /^e\.g\. Add\b/.test(object.placeholder))
					found.push(`${path}: ${object.placeholder}`);
		for (const { file, credential } of credentials)
			for (const [path, object] of walk(credential.properties, file))
				if (typeof object.placeholder === 'string' && /^e\.g\. Add\b/.test(object.placeholder))
					found.push(`${path}: ${object.placeholder}`);
		expect(found).toEqual([]);
	});

	test('every documentation URL leads to a heading of README.md', () => {
		const urls = documentationUrls();
		expect(urls.length).toBeGreaterThanOrEqual(6);
		const broken = urls.filter(([, url]) => {
			const [base, anchor] = url.split('#');
			return base !== repository || !anchor || !readmeAnchors.has(anchor);
		});
		expect(broken).toEqual([]);
	});

	test('the anchor rules are GitHub’s', () => {
		expect([
			...githubAnchors(
				'# A\n## Custom list sync\n## AI agents\n## Sizing a gate (2.x)\n```\n# not a heading\n```\n## AI agents\n### `N8N_X` & co.',
			),
		]).toEqual([
			'a',
			'custom-list-sync',
			'ai-agents',
			'sizing-a-gate-2x',
			'ai-agents-1',
			'n8n_x--co',
		]);
	});

	test('every operation names its object in its name (beyond its resource) and in its action', () => {
		const aml = nodes.find(({ description }) => description.displayName === 'AML')!.description;
		const resources = aml.properties.find((p) => p.name === 'resource')!.options as Array<{
			name: string;
			value: string;
		}>;
		// what an operation acts on, per resource: its action must say it
		const objects: Record<string, RegExp> = {
			alert: /\balerts?\b/i,
			customList: /\bcustom list\b/i,
			dataUpload: /\b(upload|csv)\b/i,
			person: /\bpersons?\b/i,
			screening: /\bscreening\b/i,
			transaction: /\btransactions?\b/i,
		};
		// the panel shows "Resource → Operation": where operations act on something inside the resource (a custom
		// list's records and fields), the resource's name or the operation's name says what (n8n's UX guidelines;
		// n8n's scan requires the bare names Get Many and Create or Update for the values getAll and upsert)
		const ownObject: Record<string, RegExp> = {
			customList: /\b(records?|fields)\b/i,
		};
		const wrong: string[] = [];
		for (const { value: resource, name: resourceName } of resources) {
			const operations = aml.properties.filter(
				(p) =>
					p.name === 'operation' &&
					((p.displayOptions as { show?: { resource?: string[] } })?.show?.resource ?? []).includes(
						resource,
					),
			);
			expect(operations).toHaveLength(1);
			for (const option of operations[0].options as Array<Record<string, string>>) {
				const where = `${resource} → ${option.value}`;
				if (!objects[resource]?.test(option.action ?? ''))
					wrong.push(`${where}: action "${option.action}" does not name its object`);
				if (ownObject[resource] && !ownObject[resource].test(`${resourceName} → ${option.name}`))
					wrong.push(`${where}: "${resourceName} → ${option.name}" does not name its object`);
				if (/deprecated/i.test(option.name))
					wrong.push(`${where}: name "${option.name}" labels a warning, not what it does`);
			}
		}
		expect(wrong).toEqual([]);
	});
});
