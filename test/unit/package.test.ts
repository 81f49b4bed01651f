import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * What `npm publish` would ship: the built nodes and credentials, their icons and codex files, README, LICENSE and
 * package.json; no sources, tests, maps, sandbox or benchmarks. Reads `npm pack --dry-run` of the built tree (npm runs
 * no script on pack: .npmrc sets ignore-scripts=true, so the build is `npm run build`, in publish.yml an explicit
 * step). The packed tarball itself (npm publish --dry-run, n8n's community package scan) is the release check's:
 * scripts/release-check.ts.
 */
const root = path.resolve(__dirname, '..', '..');
const built = fs.existsSync(path.join(root, 'dist', 'nodes', 'Aml', 'Aml.node.js'));

(built ? describe : describe.skip)('the published package', () => {
	let files: string[] = [];
	beforeAll(() => {
		const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		files = (JSON.parse(out)[0].files as Array<{ path: string }>).map((f) => f.path).sort();
	});

	test('holds every node, credential, icon and codex file that package.json names, and the documents', () => {
		const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
		for (const entry of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) expect(files).toContain(entry);
		for (const file of [
			'package.json',
			'README.md',
			'LICENSE.md',
			'dist/nodes/Aml/Aml.node.json',
			'dist/nodes/AmlTrigger/AmlTrigger.node.json',
			'dist/icons/aml.svg',
			'dist/icons/aml.dark.svg',
		]) {
			expect(files).toContain(file);
		}
		// each icon is stored once: nodes and credentials point at dist/icons
		expect(
			files.filter((file: string) => file.endsWith('.svg') && !file.startsWith('dist/icons/')),
		).toEqual([]);
	});

	test('holds no sources, tests, maps, sandbox or benchmarks', () => {
		const unwanted = files.filter((f) =>
			/\.ts$|\.map$|^test\/|^bench\/|^scripts\/|^examples\/|^docs\/|sandbox|tsbuildinfo/.test(f),
		);
		expect(unwanted).toEqual([]);
		expect(
			files.every(
				(f) =>
					f.startsWith('dist/') ||
					['package.json', 'README.md', 'LICENSE.md', 'CHANGELOG.md', 'index.js'].includes(f),
			),
		).toBe(true);
	});
});
