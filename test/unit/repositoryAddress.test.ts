import * as fs from 'node:fs';
import * as path from 'node:path';

import { AmlOAuth2Api } from '../../credentials/AmlOAuth2Api.credentials';
import { AmlWebhookApi } from '../../credentials/AmlWebhookApi.credentials';

/**
 * The package names one public repository, the one it is published from: n8n's verification compares the package's
 * repository with its documentation links. package.json's `repository.url` is the one place it is written; every other
 * address (homepage, issues, the credentials' and nodes' documentation links, links in the docs) must be that one.
 */
const root = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
	homepage: string;
	repository: { url: string };
	bugs: { url: string };
};
const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

describe('one repository address', () => {
	test('package.json: repository, homepage and issues name the same repository', () => {
		expect(repository).toMatch(/^https:\/\/github\.com\/[\w.-]+\/n8n-nodes-aml$/);
		expect(pkg.homepage).toBe(`${repository}#readme`);
		expect(pkg.bugs.url).toBe(`${repository}/issues`);
	});

	test("the credentials' and the nodes' documentation links point into it", () => {
		const links = [
			new AmlOAuth2Api().documentationUrl,
			new AmlWebhookApi().documentationUrl,
			...['nodes/Aml/Aml.node.json', 'nodes/AmlTrigger/AmlTrigger.node.json'].flatMap((file) =>
				[...read(file).matchAll(/"url":\s*"([^"]+)"/g)].map((m) => m[1]),
			),
		];
		expect(links.length).toBeGreaterThan(4);
		for (const link of links) expect(link.startsWith(`${repository}#`)).toBe(true);
	});

	test('no other GitHub address of the package in the README, SECURITY.md, docs/ or the workflows', () => {
		const files = [
			'README.md',
			'SECURITY.md',
			'CHANGELOG.md',
			...fs
				.readdirSync(path.join(root, 'docs'))
				.filter((f) => f.endsWith('.md'))
				.map((f) => `docs/${f}`),
			...fs
				.readdirSync(path.join(root, '.github', 'workflows'))
				.map((f) => `.github/workflows/${f}`),
		];
		const others: string[] = [];
		for (const file of files)
			for (const m of read(file).matchAll(/github\.com\/[\w.-]+\/n8n-nodes-aml\b/g))
				if (`https://${m[0]}` !== repository) others.push(`${file}: ${m[0]}`);
		expect(others).toEqual([]);
	});
});
