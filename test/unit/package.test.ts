import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * What `npm publish` would ship: the built nodes and credentials, their icons and codex files, README, LICENSE and
 * package.json; no sources, tests, maps, sandbox or benchmarks. Reads `npm pack --dry-run` of the built tree (scripts
 * skipped: `prepack` builds and lints before a real pack or publish, so a publish never ships without dist/).
 */
const root = path.resolve(__dirname, '..', '..');
const built = fs.existsSync(path.join(root, 'dist', 'nodes', 'Aml', 'Aml.node.js'));

(built ? describe : describe.skip)('the published package', () => {
	let files: string[] = [];
	beforeAll(() => {
		const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
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
			'dist/nodes/Aml/aml.svg',
			'dist/nodes/Aml/aml.dark.svg',
			'dist/nodes/AmlTrigger/AmlTrigger.node.json',
			'dist/nodes/AmlTrigger/aml.svg',
			'dist/nodes/AmlTrigger/aml.dark.svg',
			'dist/icons/aml.svg',
			'dist/icons/aml.dark.svg',
		]) {
			expect(files).toContain(file);
		}
	});

	test('holds no sources, tests, maps, sandbox or benchmarks', () => {
		const unwanted = files.filter((f) => /\.ts$|\.map$|^test\/|^bench\/|^scripts\/|^examples\/|^docs\/|sandbox|tsbuildinfo/.test(f));
		expect(unwanted).toEqual([]);
		expect(files.every((f) => f.startsWith('dist/') || ['package.json', 'README.md', 'LICENSE.md', 'CHANGELOG.md', 'index.js'].includes(f))).toBe(true);
	});

	test("n8n's community package scan passes on the packed tarball (its offline part: the lint n8n runs on published packages)", () => {
		// @n8n/scan-community-package is what n8n runs on a community package before it is verified. Its provenance check
		// needs the published package on the npm registry; its lint (analyzePackage) runs here on the tarball as packed.
		const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'aml-pack-'));
		try {
			const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))[0].filename as string;
			execFileSync('tar', ['xzf', path.join(dir, path.basename(packed)), '-C', dir]);
			const scanner = path.join(root, 'node_modules', '@n8n', 'scan-community-package', 'scanner', 'scanner.mjs');
			const out = execFileSync(process.execPath, ['--input-type=module', '-e', `const { analyzePackage } = await import(${JSON.stringify(scanner)}); const r = await analyzePackage(process.argv[1]); console.log(JSON.stringify({ passed: r.passed, message: r.message, details: r.details }));`, path.join(dir, 'package')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
			const result = JSON.parse(out.trim().split('\n').pop() as string);
			expect(result).toEqual({ passed: true });
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}, 120_000);
});
