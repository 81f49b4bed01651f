import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The pages a contributor reads first name only what exists: every file (path) and every code name in backticks, and
 * every link target, of CONTRIBUTING.md and docs/architecture.md. A path is looked up from the repository's root, from
 * the page's folder and under `nodes/Aml/` (the pages name `actions/router.ts`, `transport/auth.ts`); a bare file name
 * (`retry.ts`) must be the name of some file. A code name must occur as a word in the repository's code; a type,
 * interface or class named with its member (`TokenState.generation`) must be declared in a file that names the member.
 */
const ROOT = path.join(__dirname, '..', '..');
const PAGES = ['CONTRIBUTING.md', 'docs/architecture.md'];
const CODE_FOLDERS = ['nodes', 'credentials', 'test', 'scripts', 'bench', '.github', '.ci'];
const SKIPPED = new Set(['node_modules', 'dist', '.git']);

function filesUnder(folder: string): string[] {
	const full = path.join(ROOT, folder);
	if (!fs.existsSync(full)) return [];
	return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
		if (SKIPPED.has(entry.name)) return [];
		const relative = path.join(folder, entry.name);
		return entry.isDirectory() ? filesUnder(relative) : [relative];
	});
}

const allFiles = [...fs.readdirSync(ROOT).filter((name) => !SKIPPED.has(name))].flatMap((name) =>
	fs.statSync(path.join(ROOT, name)).isDirectory() ? filesUnder(name) : [name],
);
const fileNames = new Set(allFiles.map((file) => path.basename(file)));
const codeFiles = CODE_FOLDERS.flatMap(filesUnder)
	.concat(['package.json'])
	.filter((file) => /\.(ts|js|json|sh|ya?ml)$|(^|\/)run$/.test(file))
	.map((file) => fs.readFileSync(path.join(ROOT, file), 'utf8'));
const code = codeFiles.join('\n');

function escaped(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function pathExists(page: string, named: string): boolean {
	const clean = named.replace(/[#?].*$/, '').replace(/\/$/, '');
	if (!clean.includes('/')) return fileNames.has(clean) || fs.existsSync(path.join(ROOT, clean));
	return [ROOT, path.join(ROOT, path.dirname(page)), path.join(ROOT, 'nodes', 'Aml')].some((base) =>
		fs.existsSync(path.join(base, clean)),
	);
}

function nameExists(named: string): boolean {
	const [first, ...members] = named.replace(/\(\)$/, '').split('.');
	const word = (name: string) => new RegExp(`\\b${escaped(name)}\\b`).test(code);
	if (!word(first) || !members.every(word)) return false;
	if (members.length === 0 || !/^[A-Z][a-z]/.test(first)) return true;
	// a member of a declared type: declared in a file that also names the member
	const declared = new RegExp(`\\b(interface|type|class|enum|const)\\s+${escaped(first)}\\b`);
	return codeFiles.some(
		(file) =>
			declared.test(file) && members.every((member) => new RegExp(`\\b${member}\\b`).test(file)),
	);
}

/** What a page names: paths, and code names, from its backticks and its link targets. */
function namedBy(page: string): { paths: string[]; names: string[] } {
	const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
	const paths: string[] = [];
	const names: string[] = [];
	for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g))
		if (!/^(https?:|mailto:|#)/.test(link)) paths.push(link);
	for (const [, quoted] of text.matchAll(/`([^`\n]+)`/g)) {
		// placeholders, commands, URLs, the service's paths, home-folder paths and values are not names of this repository
		if (/[<>…*~\s'"=,:]|^\/|^https?:|^-|^\d/.test(quoted)) continue;
		if (/\.(ts|js|json|md|ya?ml|sh|svg)$|\//.test(quoted)) paths.push(quoted);
		else if (/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*(\(\))?$/.test(quoted)) names.push(quoted);
	}
	return { paths, names };
}

describe.each(PAGES)('%s names only what exists', (page) => {
	const { paths, names } = namedBy(page);

	test('every file it names exists', () => {
		expect(paths.length).toBeGreaterThan(0);
		expect(paths.filter((named) => !pathExists(page, named))).toEqual([]);
	});

	test('every code name it names is in the code', () => {
		expect(names.length).toBeGreaterThan(0);
		expect(names.filter((named) => !nameExists(named))).toEqual([]);
	});
});
