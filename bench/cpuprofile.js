#!/usr/bin/env node
/**
 * Reads a V8 CPU profile of n8n (taken with `npm run bench -- --n8n-env="NODE_OPTIONS=--cpu-prof --cpu-prof-dir=DIR"`).
 *   node bench/cpuprofile.js FILE                 busy share of n8n's main thread per second (find the scenario's window)
 *   node bench/cpuprofile.js FILE FROM TO [N]     for seconds FROM..TO: share by area, then the top N functions by self
 *                                                 and by inclusive time
 *   node bench/cpuprofile.js FILE FROM TO --per=R for seconds FROM..TO holding R requests of the AML node: busy ms per
 *                                                 request by step of a request (where each millisecond goes)
 */
const fs = require('node:fs');

const [file, fromArg, toArg, topArg] = process.argv.slice(2);
const perArg = topArg?.startsWith('--per=') ? Number(topArg.slice('--per='.length)) : undefined;
if (!file) {
	console.error('usage: node bench/cpuprofile.js FILE [FROM TO [N]]');
	process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const samples = [];
let t = 0;
for (let i = 0; i < profile.samples.length; i++) {
	t += profile.timeDeltas[i];
	samples.push({ second: t / 1e6, id: profile.samples[i], us: profile.timeDeltas[i] });
}
const name = (n) => n.callFrame.functionName;

if (fromArg === undefined) {
	const perSecond = new Map();
	for (const s of samples) {
		const k = Math.floor(s.second);
		const e = perSecond.get(k) ?? { all: 0, busy: 0 };
		e.all += s.us;
		if (name(byId.get(s.id)) !== '(idle)') e.busy += s.us;
		perSecond.set(k, e);
	}
	for (const [k, e] of perSecond) console.log(`${k}s ${Math.round((e.busy / e.all) * 100)}%`);
	process.exit(0);
}

if (perArg !== undefined) {
	perRequest(Number(fromArg), Number(toArg), perArg);
	process.exit(0);
}

const from = Number(fromArg);
const to = Number(toArg);
const top = Number(topArg ?? 30);
/** Areas, tried from the innermost frame outwards: the first that matches takes the sample. */
const areas = [
	['expression evaluation (n8n)', (url) => /expression-runtime|workflow-expression|\/expression\.js|workflow-data-proxy/.test(url)],
	['HTTP client (n8n helper, axios, sockets)', (url, fn) => /backend-network|axios|follow-redirects|proxy-from-env|node:net|node:_http|node:http|stream_base|internal\/streams/.test(url) || /^(writev|writeBuffer)$/.test(fn)],
	['database (SQLite, TypeORM)', (url) => /sqlite3|typeorm/.test(url)],
	// The package as n8n loads it (the n8n install itself may live under a folder named n8n-nodes-aml).
	['AML package', (url) => /node_modules\/n8n-nodes-aml\//.test(url)],
	['n8n core (engine, webhooks, events)', (url) => /node_modules\/(n8n|n8n-core|n8n-workflow|@n8n\/[^/]+)\//.test(url)],
];
const key = (n) => `${name(n) || '(anonymous)'} ${n.callFrame.url.replace(/.*node_modules\//, '')}:${n.callFrame.lineNumber}`;
const self = new Map();
const inclusive = new Map();
const byArea = new Map();
let total = 0;
for (const s of samples) {
	if (s.second < from || s.second > to) continue;
	total += s.us;
	const leaf = byId.get(s.id);
	self.set(key(leaf), (self.get(key(leaf)) ?? 0) + s.us);
	let area = ['(garbage collector)', '(idle)', '(program)'].includes(name(leaf)) ? name(leaf) : undefined;
	const seen = new Set();
	for (let cur = s.id; cur !== undefined; cur = parent.get(cur)) {
		const n = byId.get(cur);
		const k = key(n);
		if (!seen.has(k)) {
			seen.add(k);
			inclusive.set(k, (inclusive.get(k) ?? 0) + s.us);
		}
		area ??= areas.find(([, match]) => match(n.callFrame.url, name(n)))?.[0];
	}
	area ??= 'other';
	byArea.set(area, (byArea.get(area) ?? 0) + s.us);
}
const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
const list = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).forEach(([k, us]) => console.log(`${pct(us)} ${k}`));
console.log(`window ${from}-${to} s: ${Math.round(total / 1000)} ms sampled`);
console.log('== by area');
list(byArea, 20);
console.log('== self');
list(self, top);
console.log('== inclusive');
list(inclusive, top);

/**
 * Steps of one request of the AML node, judged on the whole stack (an answer's callbacks run without the node's frames
 * above them, so the stack's libraries say what a sample was doing). The first step that matches takes the sample.
 */
function perRequest(from, to, requests) {
	const url = (st, re) => st.some((n) => re.test(n.callFrame.url));
	const fn = (st, re) => st.some((n) => re.test(name(n)));
	const steps = [
		['(garbage collector)', (st) => name(st[0]) === '(garbage collector)'],
		['(program: V8 and native work outside JavaScript)', (st) => name(st[0]) === '(program)'],
		["n8n getNodeParameter: expression evaluation (the item's {{ $json.id }})", (st) => fn(st, /^_?getNodeParameter$/) && url(st, /expression-runtime|workflow-data-proxy/)],
		["n8n getNodeParameter: lookup, defaults, n8n's validation", (st) => fn(st, /^_?getNodeParameter$/)],
		["n8n credential per request: decrypt (httpRequestWithAuthentication → getDecrypted)", (st) => url(st, /node:internal\/crypto|n8n-core\/dist\/encryption/)],
		["n8n credential per request: database read (SQLite, TypeORM)", (st) => url(st, /sqlite3|typeorm|tarn/)],
		["n8n credential per request: defaults, checks (getCredentials, applyDefaultsAndOverwrites)", (st) => fn(st, /^(getCredentials|_getCredentials|getDecrypted|getCredentialsEntity|applyDefaultsAndOverwrites)$/)],
		["n8n HTTP: request helper, OAuth2 client, axios, sockets", (st) => fn(st, /^(requestOAuth2|httpRequestWithAuthentication|httpRequest|createOAuth2Client)$/) || url(st, /backend-network|axios|follow-redirects|client-oauth2|proxy-from-env|node:net|node:_http|node:http|node:dns|node:internal\/(streams|url)|node:url/)],
		['n8n public API (the bench polling for the execution, not the node)', (st) => url(st, /public-api/)],
		['AML package: transport (nodes/Aml/transport, shared/n8n seam)', (st) => url(st, /n8n-nodes-aml\/dist\/nodes\/(Aml\/transport|shared)\//)],
		['AML package: router, validation', (st) => url(st, /n8n-nodes-aml\/dist\/nodes\/Aml\/(actions\/router|validation)/)],
		['AML package: operation, helpers', (st) => url(st, /n8n-nodes-aml\/dist\//)],
		['expression evaluation (other)', (st) => url(st, /expression-runtime|workflow-data-proxy|workflow-expression|\/expression\.js/)],
		['JSON parse/stringify (outside the above)', (st) => /^(parse|stringify)$/.test(name(st[0]))],
		['n8n engine (items, events, execution data)', (st) => url(st, /node_modules\/(n8n|n8n-core|n8n-workflow|@n8n\/[^/]+)\//)],
		['other', () => true],
	];
	const totals = new Map();
	let busy = 0;
	for (const s of samples) {
		if (s.second < from || s.second > to || name(byId.get(s.id)) === '(idle)') continue;
		const st = [];
		for (let cur = s.id; cur !== undefined; cur = parent.get(cur)) st.push(byId.get(cur));
		const [step] = steps.find(([, match]) => match(st));
		totals.set(step, (totals.get(step) ?? 0) + s.us);
		busy += s.us;
	}
	console.log(`window ${from}-${to} s: ${Math.round(busy / 1000)} ms busy, ${requests} requests: ${(busy / 1000 / requests).toFixed(2)} ms per request`);
	for (const [step, us] of [...totals].sort((a, b) => b[1] - a[1]))
		console.log(`${(us / 1000 / requests).toFixed(3)} ms ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${step}`);
}
