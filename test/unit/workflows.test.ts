import * as fs from 'node:fs';
import * as path from 'node:path';

import { TRUSTED_PUBLISHING_NPM, tagProblem, versionAtLeast } from '../../scripts/release-check';

/**
 * The GitHub Actions workflows (CI on push and pull request; npm publish with provenance on a version tag) and the
 * pieces of the release check (scripts/release-check.ts) that decide on a given tag or npm. actionlint runs over the
 * workflows in the release check itself (`npm run release:check`, suite `release` of `npm test`).
 */
const dir = path.resolve(__dirname, '..', '..', '.github', 'workflows');
const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
const read = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
/** The Node lines a workflow sets up (`node-version: 24`). */
const nodeLines = (text: string) =>
	[...text.matchAll(/node-version:\s*'?(\d+)/g)].map((m) => Number(m[1]));

describe('GitHub Actions workflows', () => {
	test('ci.yml and publish.yml exist', () => {
		expect(files.sort()).toEqual(['ci.yml', 'publish.yml']);
	});

	test('run on Node LTS lines n8n supports (22, 24), none on an ended one', () => {
		const ci = nodeLines(read('ci.yml'));
		const publish = nodeLines(read('publish.yml'));
		expect(ci.sort()).toEqual([22, 24]);
		expect(new Set(publish)).toEqual(new Set([24]));
	});

	test('publish.yml builds explicitly, checks the release, then publishes the checked tarball with provenance', () => {
		const publish = read('publish.yml');
		expect(publish).toMatch(/id-token: write/);
		const order = [
			'- name: npm 11.5.1 or later',
			'- run: npm ci',
			'- run: npm run build',
			'run: npm run release:check -- --tag "$GITHUB_REF_NAME" --out "$RUNNER_TEMP/package"',
			'npm publish "$RUNNER_TEMP"/package/*.tgz --access public --provenance',
		];
		const at = order.map((step) => publish.indexOf(step));
		expect(at.every((i) => i >= 0)).toBe(true);
		expect([...at].sort((a, b) => a - b)).toEqual(at);
		// the first release's token (a repository secret), else trusted publishing: never a token in the file
		expect(publish).toMatch(/NPM_TOKEN: \$\{\{ secrets\.NPM_TOKEN \}\}/);
		expect(publish).not.toMatch(/npm_[A-Za-z0-9]{20,}/);
	});

	test('an absent NPM_TOKEN leaves no empty token that would stop npm trying trusted publishing (OIDC)', () => {
		const publish = read('publish.yml');
		// setup-node's registry-url writes `_authToken=${NODE_AUTH_TOKEN}`: empty when the secret is absent
		expect(publish).not.toMatch(/^\s*registry-url:/m);
		expect(publish).not.toMatch(/^\s*NODE_AUTH_TOKEN:/m);
		// a token line only when the secret is set, as n8n-nodes-starter's workflow does
		expect(publish).toMatch(
			/if \[ -n "\$NPM_TOKEN" \]; then\n(.*\n)*?\s*npm config set \/\/registry\.npmjs\.org\/:_authToken "\$NPM_TOKEN"\n/,
		);
	});

	test('a job that can mint an OIDC token (id-token: write) runs nothing by a floating version', () => {
		const publish = read('publish.yml');
		const jobs = publish
			.replace(/^\s*#.*\n/gm, '')
			.slice(publish.replace(/^\s*#.*\n/gm, '').indexOf('\njobs:\n'))
			.split(/\n(?=  [a-z][\w-]*:\n)/)
			.slice(1);
		expect(jobs.length).toBeGreaterThanOrEqual(2);
		expect(publish.slice(0, publish.indexOf('\njobs:\n'))).not.toMatch(/id-token: write/);
		const minting = jobs.filter((job) => /id-token: write/.test(job));
		expect(minting).toHaveLength(1);
		for (const job of minting) {
			expect(job).not.toMatch(/@latest|npx --yes|npm install -g [\w@/.-]+@\d+(\s|$)|@(next|\*)/m);
			expect(job).toMatch(/- run: npm ci/);
		}
		// the whole scan with the newest scanner runs in a job of its own, without id-token
		const scan = jobs.find((job) => /@n8n\/scan-community-package@latest/.test(job));
		expect(scan).toBeDefined();
		expect(scan).not.toMatch(/id-token/);
	});

	test('actions at their current major versions', () => {
		const current: Record<string, string> = {
			'actions/checkout': 'v6',
			'actions/setup-node': 'v6',
			'actions/cache': 'v5',
		};
		const uses = files.flatMap((file) =>
			[...read(file).matchAll(/uses: ([\w-]+\/[\w-]+)@(\S+)/g)].map((m) => [file, m[1], m[2]]),
		);
		expect(uses.length).toBeGreaterThanOrEqual(6);
		expect(uses.filter(([, action, ref]) => current[action] !== ref)).toEqual([]);
	});

	test('no lifecycle script is relied on: .npmrc skips them, package.json has no prepack or prepublish', () => {
		const root = path.resolve(dir, '..', '..');
		expect(fs.readFileSync(path.join(root, '.npmrc'), 'utf8')).toMatch(/^ignore-scripts=true$/m);
		const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
			.scripts as Record<string, string>;
		expect(
			Object.keys(scripts).filter((s) => /^(pre|post)?(pack|publish|publishOnly|prepare)$/.test(s)),
		).toEqual([]);
	});
});

describe('release check', () => {
	test.each([
		['v0.1.0', '0.1.0', true],
		['v1.2.3', '1.2.3', true],
		['0.1.0', '0.1.0', false],
		['v0.1.1', '0.1.0', false],
		['v0.1.0', '0.1.1', false],
		['v0.1', '0.1.0', false],
		['refs/tags/v0.1.0', '0.1.0', false],
		['v0.1.0-rc.1', '0.1.0', false],
		['V0.1.0', '0.1.0', false],
	])('tag %s for version %s: accepted %s', (tag, version, accepted) => {
		const problem = tagProblem(tag, version);
		expect(problem === undefined).toBe(accepted);
		if (problem) expect(problem).toContain(`v${version}`);
	});

	test.each([
		['11.5.1', true],
		['11.6.0', true],
		['12.0.0', true],
		['11.19.1', true],
		['11.5.0', false],
		['11.4.2', false],
		['10.9.3', false],
		['10.99.99', false],
	])(`npm %s supports trusted publishing (${TRUSTED_PUBLISHING_NPM} or later): %s`, (npm, ok) => {
		expect(versionAtLeast(npm, TRUSTED_PUBLISHING_NPM)).toBe(ok);
	});

	test('versions compare by number, with or without a leading v', () => {
		expect(versionAtLeast('v24.10.0', '24.9.0')).toBe(true);
		expect(versionAtLeast('0.32.0', '0.33.0')).toBe(false);
		expect(() => versionAtLeast('latest', '1.0.0')).toThrow(/not a version/);
	});
});

describe('Node versions', () => {
	test("package.json's engines names the oldest Node the README names", () => {
		const root = path.resolve(dir, '..', '..');
		const engines = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines
			.node as string;
		const min = /^>=(\d+\.\d+)$/.exec(engines)?.[1];
		expect(min).toBeDefined();
		expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toContain(`Node ${min} or later`);
	});
});
