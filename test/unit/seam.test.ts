import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Outside the seam folder (nodes/shared/n8n/) nothing reads n8n's internals: its error wrappers and message texts,
 * the OAuth2 client's errors, the token data n8n keeps with a credential, its parameter and display internals, its
 * connection-type constants, its deduplication store and the request options its OAuth2 path is read under. Each name below is one of those; a hit elsewhere belongs in the seam, with a contract
 * test in test/contract/.
 */
const INTERNALS = [
	'oauthTokenData',
	'n8n_expires_at',
	'access_token',
	// the token endpoint's lifetime n8n keeps with the token (the transport reads token data through storedToken)
	'expires_in',
	'NodeHelpers',
	'displayParameter',
	'EAUTH',
	'Failed to acquire',
	'OperationalError',
	'NodeConnectionTypes',
	'AxiosError',
	'isAxiosError',
	'.cause',
	'.messages',
	'__rl',
	'getParameterValueByPath',
	'refreshOAuth2Token(',
	"'refreshOAuth2Token'",
	'.refreshOAuth2Token',
	'checkProcessedAndRecord',
	'DeduplicationHelperFunctions',
	// the request options under which n8n hands every status back and renews nothing (ANSWER_EVERY_STATUS)
	'ignoreHttpStatusErrors',
	'returnFullResponse',
	// the tool variant's type name (runsAsTool) and the webhook request's bytes (rawBodyOf)
	"'Tool'",
	'.rawBody',
	'readRawBody',
	// a webhook context's credential read with a run (webhookCredentials)
	'_getCredentials',
	'runExecutionData',
	// the generic OAuth2 credential's field name (ignoresSslIssues)
	'ignoreSSLIssues',
	// the resource mapper's stored value (mappedFields, fieldMapperProperty)
	'mappingMode',
	'autoMapInputData',
];

const repo = path.resolve(__dirname, '..', '..');
const seam = path.join(repo, 'nodes', 'shared', 'n8n');

function sources(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return full === seam ? [] : sources(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

describe('the seam with n8n', () => {
	test("no file outside nodes/shared/n8n names one of n8n's internals", () => {
		const hits = [
			...sources(path.join(repo, 'nodes')),
			...sources(path.join(repo, 'credentials')),
		].flatMap((file) => {
			const text = fs.readFileSync(file, 'utf8');
			return INTERNALS.filter((name) => text.includes(name)).map(
				(name) => `${path.relative(repo, file)}: ${name}`,
			);
		});
		expect(hits).toEqual([]);
	});

	test("every seam file is in docs/architecture.md's seam table, saying what it relies on and where it was measured", () => {
		const files = fs.readdirSync(seam).filter((name) => name.endsWith('.ts'));
		const table = fs.readFileSync(path.join(repo, 'docs', 'architecture.md'), 'utf8');
		for (const file of files) {
			expect({ file, listed: table.includes(`| \`${file}\` |`) }).toEqual({ file, listed: true });
			const text = fs.readFileSync(path.join(seam, file), 'utf8');
			expect({
				file,
				relies: /Relies on:/.test(text),
				measured: /Measured on:/.test(text),
			}).toEqual({ file, relies: true, measured: true });
		}
	});
});
