import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as ts from 'typescript';

/**
 * SECURITY.md: every regular expression runs in linear time. Every regular-expression literal in nodes/ and
 * credentials/ (found by parsing the sources, so a new one is covered without being listed here), and every regular
 * expression inside a credential's `={{…}}` expression string, runs against hostile 100,000-character inputs built
 * from its own characters: long runs of each character with and without a character that cannot match before or
 * after them,
 * and its literal words followed by such runs. A linear pattern needs a few milliseconds per input; a backtracking one
 * needs seconds to hours. Each pattern runs in its own process, which is killed when it exceeds the bound.
 */

const ROOT = path.resolve(__dirname, '../..');
const LENGTH = 100_000;
/**
 * Per input, in CPU time of the pattern's process (a busy machine does not stretch it as it does wall time): a linear
 * pattern takes about 1 ms for 100,000 characters.
 */
const BOUND_MS = 250;

function sources(dir: string): string[] {
	return fs
		.readdirSync(path.join(ROOT, dir), { withFileTypes: true })
		.flatMap((entry) =>
			entry.isDirectory()
				? sources(path.join(dir, entry.name))
				: entry.name.endsWith('.ts')
					? [path.join(dir, entry.name)]
					: [],
		);
}

interface Found {
	file: string;
	line: number;
	source: string;
	flags: string;
}

/** A regular-expression literal inside an n8n expression string (`.replace(/…/, …)` and the like). */
const IN_EXPRESSION =
	/\.(?:replace|replaceAll|match|matchAll|test|search|split)\(\s*\/((?:\\.|[^/\\\n])+)\/([a-z]*)/g;

function findRegexes(): Found[] {
	const found: Found[] = [];
	for (const file of [...sources('nodes'), ...sources('credentials')]) {
		const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
		const tree = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
		const visit = (node: ts.Node): void => {
			const line = tree.getLineAndCharacterOfPosition(node.getStart()).line + 1;
			if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
				const literal = node.getText();
				const end = literal.lastIndexOf('/');
				found.push({ file, line, source: literal.slice(1, end), flags: literal.slice(end + 1) });
			} else if (ts.isStringLiteralLike(node) && node.text.includes('{{')) {
				for (const match of node.text.matchAll(IN_EXPRESSION))
					found.push({ file, line, source: match[1], flags: match[2] });
			}
			ts.forEachChild(node, visit);
		};
		visit(tree);
	}
	return found;
}

/**
 * What the hostile inputs are built from: every printable character the pattern names (and common ones), and its
 * words (`last saved id`, `Basic`, `line`). The child builds them: runs of each character with and without a tail that
 * cannot match, alternations of two named characters (`a:a:a:`), and each word followed by a run.
 */
function ingredients(source: string): { chars: string[]; named: string[]; words: string[] } {
	const common = [
		'/',
		' ',
		'\t',
		'\n',
		'\r',
		'a',
		'A',
		'z',
		'0',
		'9',
		'.',
		'-',
		'_',
		':',
		'"',
		"'",
		'=',
		'+',
		',',
		'\\',
	];
	const named = new Set<string>();
	for (const ch of source.replace(/\\[dswbDSWB]/g, '')) if (ch >= ' ' && ch <= '~') named.add(ch);
	const words = [...new Set(source.replace(/\\[a-zA-Z]/g, ' ').match(/[A-Za-z]{2,}/g) ?? [])];
	return { chars: [...new Set([...common, ...named])], named: [...named], words };
}

/** Runs the pattern over the inputs in a child process: the slowest input and its time, or why the child failed. */
function slowest(found: Found): { ms?: number; input?: string; error?: string } {
	const program = `
		const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
		const { source, flags, chars, named, words } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
		const N = ${LENGTH};
		function* inputs() {
			for (const ch of chars)
				for (const head of ['', '!'])
					for (const tail of ['', '\\u0000', '!', '/x']) yield head + ch.repeat(N - head.length - tail.length) + tail;
			for (let i = 0; i < named.length; i++)
				for (let j = 0; j < named.length; j++) if (i !== j) yield (named[i] + named[j]).repeat(N / 2 - 1) + '\\u0000';
			for (const word of words) {
				yield (word + ' ').repeat(Math.floor(N / (word.length + 1)));
				for (const run of [' ', 'a', '0', '/']) yield word + ' ' + run.repeat(N - word.length - 2) + '\\u0000';
			}
		}
		let worst = { ms: 0, input: '' };
		for (const input of inputs()) {
			// as the code uses it: a search (a sticky pattern at the start only), then every match (at most 1,000)
			const all = new RegExp(source, flags.includes('g') ? flags : flags + 'g');
			const start = cpuMs();
			input.replace(new RegExp(source, flags), '');
			let count = 0;
			for (const _ of input.matchAll(all)) if (++count >= 1000) break;
			const ms = cpuMs() - start;
			if (ms > worst.ms) worst = { ms, input: JSON.stringify(input.slice(0, 12)) + '… (' + input.length + ' characters)' };
			if (ms > ${BOUND_MS}) break;
		}
		process.stdout.write(JSON.stringify(worst));`;
	const run = spawnSync(process.execPath, ['-e', program], {
		input: JSON.stringify({
			source: found.source,
			flags: found.flags,
			...ingredients(found.source),
		}),
		timeout: 20_000,
		maxBuffer: 1 << 20,
		encoding: 'utf8',
	});
	if (run.error || run.status !== 0)
		return {
			error:
				`${String(run.error ?? '')} ${String(run.stderr ?? '')}`.trim().slice(0, 300) || 'killed',
		};
	return JSON.parse(run.stdout) as { ms: number; input: string };
}

const regexes = findRegexes();

test('the scan finds the regular expressions of nodes/ and credentials/', () => {
	expect(regexes.length).toBeGreaterThan(30);
	expect(regexes.some((r) => r.file === 'nodes/Aml/transport/secureUrl.ts')).toBe(true);
});

describe('every regular expression in nodes/ and credentials/ runs in linear time on 100,000 hostile characters', () => {
	test.each(regexes.map((r) => [`${r.file}:${r.line} /${r.source}/${r.flags}`, r] as const))(
		'%s',
		(_name, found) => {
			const result = slowest(found);
			expect(result.error).toBeUndefined();
			expect({ slowestMs: Math.round(result.ms ?? Infinity), input: result.input }).toEqual({
				slowestMs: expect.any(Number),
				input: result.input,
			});
			expect(result.ms).toBeLessThan(BOUND_MS);
		},
	);
});
