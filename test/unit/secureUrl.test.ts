/** nodes/Aml/transport/secureUrl.ts: the credential's URLs, secrets only over https or loopback. */
import {
	insecureUrlProblem,
	isLoopbackHost,
	MAX_URL_FIELD_LENGTH,
	trimSlashes,
	urlFieldTooLong,
} from '../../nodes/Aml/transport/secureUrl';

describe('transport: secrets only over https or loopback', () => {
	test('credential URL fields: slashes trimmed in one pass, lengths bounded', () => {
		expect(trimSlashes('https://a.example.com///', { start: false, end: true })).toBe(
			'https://a.example.com',
		);
		expect(trimSlashes('//api/v2//', { start: true, end: true })).toBe('api/v2');
		expect(trimSlashes('///', { start: true, end: true })).toBe('');
		const hostile = `x${'/'.repeat(1_000_000)}x`;
		const start = Date.now();
		expect(trimSlashes(hostile, { start: true, end: true })).toBe(hostile);
		expect(Date.now() - start).toBeLessThan(100);
		expect(urlFieldTooLong('x'.repeat(MAX_URL_FIELD_LENGTH), 'API Base URL')).toBeUndefined();
		expect(urlFieldTooLong('x'.repeat(MAX_URL_FIELD_LENGTH + 1), 'API Path Prefix')).toMatch(
			/^The credential's API Path Prefix is longer than 2048 characters/,
		);
	});

	test('loopback is localhost, 127.0.0.0/8 and ::1; nothing else', () => {
		for (const host of [
			'localhost',
			'LOCALHOST',
			'api.localhost',
			'127.0.0.1',
			'127.255.0.9',
			'::1',
			'[::1]',
		])
			expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: true });
		for (const host of [
			'0.0.0.0',
			'[::ffff:7f00:1]',
			'10.0.0.1',
			'128.0.0.1',
			'127.0.0.1.example.com',
			'localhost.example.com',
			'app.example.com',
		])
			expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: false });
	});

	test('https passes; http passes only on loopback or when allowed; the message names field, scheme and host but no user or password', () => {
		expect(insecureUrlProblem('https://app.example.com', 'API Base URL', false)).toBeUndefined();
		expect(insecureUrlProblem('http://127.0.0.1:8080', 'API Base URL', false)).toBeUndefined();
		expect(insecureUrlProblem('http://[::1]:8080/oauth/token', 'Token URL', false)).toBeUndefined();
		expect(insecureUrlProblem('http://app.example.com', 'API Base URL', true)).toBeUndefined();
		const refused = insecureUrlProblem(
			'http://user:pa55word@app.example.com/oauth/token?x=1',
			'Token URL',
			false,
		);
		expect(refused).toMatch(
			/^The credential's Token URL \(http:\/\/app\.example\.com\) uses plain http: .*Allow Plain HTTP \(Insecure\).*Nothing was sent$/,
		);
		expect(refused).not.toMatch(/pa55word|user/);
		expect(insecureUrlProblem('ftp://app.example.com', 'API Base URL', true)).toMatch(
			/must start with https:\/\//,
		);
		expect(insecureUrlProblem('app.example.com', 'API Base URL', false)).toMatch(
			/is not a valid URL/,
		);
	});
});
