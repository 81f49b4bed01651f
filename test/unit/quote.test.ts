import { quoteServiceText, rememberSecret } from '../../nodes/Aml/transport/quote';

/** Service text as it is quoted in errors, descriptions and output fields (transport/quote.ts). */
describe('quoteServiceText', () => {
	test('bounded with an ellipsis; short text unchanged', () => {
		expect(quoteServiceText('Person not found')).toBe('Person not found');
		const long = quoteServiceText('a'.repeat(5_000_000));
		expect(long).toHaveLength(1001);
		expect(long.endsWith('…')).toBe(true);
		expect(quoteServiceText('b'.repeat(400), 300)).toBe(`${'b'.repeat(300)}…`);
	});

	test('newlines, controls and bidirectional controls become one space', () => {
		expect(
			quoteServiceText('one\r\ntwo\tthree \u202eevil\u202c \u2066x\u2069\u0000\u009b end'),
		).toBe('one two three evil x end');
	});

	test('bearer-like values and key=value secrets are redacted', () => {
		expect(
			quoteServiceText(
				'echo: Authorization: Bearer eyJhbGciOi.abc-def_9 and basic YW1sOnNlY3JldA== and "access_token":"t0k3n" client_secret=s3cr3t',
			),
		).toBe(
			'echo: Authorization: Bearer [redacted] and basic [redacted] and "access_token":"[redacted]" client_secret=[redacted]',
		);
		expect(quoteServiceText('Bearer\nabc123def')).toBe('Bearer [redacted]');
	});

	test('a remembered credential secret is redacted, also where it straddles the bound; short values are not', () => {
		const secret = 'Zq8-credential-secret-value-Zq8';
		rememberSecret(secret);
		rememberSecret('abc');
		expect(quoteServiceText(`failed for ${secret}: abc`)).toBe('failed for [redacted]: abc');
		const straddling = quoteServiceText(`${'y'.repeat(990)}${secret}${'z'.repeat(100)}`);
		expect(straddling).not.toContain(secret.slice(0, 10));
		expect(straddling.startsWith(`${'y'.repeat(990)}[redacted]`)).toBe(true);
	});

	// CPU time of this process, which a busy machine does not stretch as it does wall time: a linear quote of 5 MB takes
	// a few ms, a backtracking one seconds.
	test('linear: 5 MB of hostile text quoted within 250 ms of CPU', () => {
		const start = process.cpuUsage();
		quoteServiceText(`Bearer ${' '.repeat(2_000_000)}${'\u202e'.repeat(2_000_000)}`);
		quoteServiceText('access_token'.repeat(400_000));
		const used = process.cpuUsage(start);
		expect((used.user + used.system) / 1000).toBeLessThan(250);
	});
});
