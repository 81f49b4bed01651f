/**
 * `npm run demo` (through scripts/demo.sh, which installs and builds first): the AML sandbox (its CLI), a real n8n
 * with this package installed as a community node, an owner login, an AML credential pointing at the sandbox
 * and the example workflows of examples/. The examples whose credentials the demo fills are published (the transaction
 * gate, the Slack alert examples: n8n's requests to slack.com go to a Slack stand-in whose messages the demo prints),
 * their AML Triggers registered at the sandbox, and ready `curl` commands printed: a payment through the gate and a
 * signed alert delivery to each published trigger, and the hold loop (by the decision rules, and by hand through
 * example 08's release form, whose URL and login are printed). Prints the editor URL and the login; Ctrl-C or SIGTERM stops
 * everything.
 *
 *   AML_DEMO_DIR           n8n user folder, kept between runs (default <repo>/.n8n-demo)
 *   AML_DEMO_PORT          n8n port (default 5678, a free one when taken)
 *   AML_DEMO_SANDBOX_PORT  sandbox port (default 0 = a free one)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as readline from 'node:readline';

import axios from 'axios';

import {
	N8nClient,
	sandboxCredentialData,
	type CredentialRef,
	type Json,
} from '../test/harness/client';
import { importExamples, readExample } from '../test/harness/examples';
import {
	DEFAULT_OWNER,
	REPO_ROOT,
	freePort,
	login,
	startN8n,
	type N8nInstance,
} from '../test/harness/n8n';
import { startQueueCluster, type QueueCluster } from '../test/harness/queue';
import { startSlackStandIn, type SlackCall, type SlackStandIn } from '../test/harness/slack';
import { startCoreBankingStandIn, type CoreBankingStandIn } from '../test/harness/coreBanking';

interface DemoState {
	apiKey?: string;
	credentialId?: string;
	/** Credentials the demo chooses in the examples, by type → id. */
	credentials?: Record<string, string>;
}

/**
 * `npm run dev` (`--dev`): what `n8n-node dev --external-n8n` does, on the n8n this project installs: TypeScript in
 * watch mode, the package linked into the user folder's `.n8n/custom`, n8n with N8N_DEV_RELOAD=true, which reloads
 * the nodes on every rebuild.
 */
const devMode = process.argv.includes('--dev');
const demoDir = path.resolve(
	process.env.AML_DEMO_DIR ?? path.join(REPO_ROOT, devMode ? '.n8n-dev' : '.n8n-demo'),
);
const stateFile = path.join(demoDir, 'demo-state.json');

async function portFree(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** Starts the sandbox CLI and waits for its `AML sandbox: api=… token=… control=…` line. */
async function startSandboxCli(port: number): Promise<{
	child: ChildProcess;
	baseUrl: string;
	tokenUrl: string;
	controlUrl: string;
	clientId: string;
	clientSecret: string;
}> {
	const tsx = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
	const child = spawn(
		tsx,
		[path.join(REPO_ROOT, 'test', 'sandbox', 'cli.ts'), '--port', String(port)],
		{
			cwd: REPO_ROOT,
			stdio: ['ignore', 'pipe', 'inherit'],
			detached: true,
		},
	);
	return await new Promise((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error('the sandbox did not start within 60 s')),
			60_000,
		);
		child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) during start`)));
		const lines = readline.createInterface({ input: child.stdout! });
		lines.on('line', (line) => {
			const m =
				/^AML sandbox: api=(\S+) token=(\S+) control=(\S+) client_id=(\S+) client_secret=(\S+)/.exec(
					line,
				);
			if (m) {
				clearTimeout(timer);
				resolve({
					child,
					baseUrl: m[1],
					tokenUrl: m[2],
					controlUrl: m[3],
					clientId: m[4],
					clientSecret: m[5],
				});
			} else {
				console.log(`[sandbox] ${line}`);
			}
		});
	});
}

function stopGroup(child: ChildProcess | undefined): void {
	if (!child?.pid || child.exitCode !== null) return;
	try {
		process.kill(-child.pid, 'SIGTERM');
	} catch {
		/* gone */
	}
}

/** One line per Slack message the examples post (to the stand-in), with the button of a send-and-wait message. */
function printSlackCall(call: SlackCall): void {
	if (call.method !== 'chat.postMessage') return;
	const blocks = (call.body.blocks ?? []) as Json[];
	const text = String(
		call.body.text ??
			blocks
				.map((b) => b.text?.text ?? '')
				.filter((t: string) => t.trim())
				.join(' | '),
	);
	console.log(`[slack ${call.body.channel}] ${text.replace(/\s*\n\s*/g, ' / ')}`);
	for (const button of blocks
		.filter((b) => b.type === 'actions')
		.flatMap((b) => b.elements as Json[])) {
		if (button.url)
			console.log(
				`[slack ${call.body.channel}]   button "${button.text?.text}": open ${button.url}`,
			);
	}
}

/** A monitoring alert in the sandbox (a transaction over the scenario threshold), for the printed signed delivery. */
async function demoAlert(sandbox: {
	baseUrl: string;
	tokenUrl: string;
	clientId: string;
	clientSecret: string;
	controlUrl: string;
}): Promise<Json> {
	const token = (
		await axios.post(sandbox.tokenUrl, 'grant_type=client_credentials', {
			auth: { username: sandbox.clientId, password: sandbox.clientSecret },
		})
	).data.access_token;
	const api = axios.create({
		baseURL: `${sandbox.baseUrl}/api`,
		headers: { Authorization: `Bearer ${token}` },
	});
	await api.post('/v1/persons/cust-1001/transactions', {
		id: 'demo-tx-1',
		attributes: {
			amount: '25000.00',
			type: 'wire_transfer',
			direction: 'O',
			timestamp: new Date().toISOString(),
		},
	});
	await api.post('/v1/transactions/demo-tx-1/monitoring-checks');
	const events = (await axios.get(`${sandbox.controlUrl}/events`)).data as Json[];
	return events.filter((e) => e.action === 'ALERT_CREATED').pop()!.metadata;
}

/** Single-quoted for bash. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

async function main(): Promise<void> {
	fs.mkdirSync(demoDir, { recursive: true });
	const state: DemoState = fs.existsSync(stateFile)
		? JSON.parse(fs.readFileSync(stateFile, 'utf8'))
		: {};
	let sandbox: Awaited<ReturnType<typeof startSandboxCli>> | undefined;
	let slack: SlackStandIn | undefined;
	let coreBanking: CoreBankingStandIn | undefined;
	let n8n: N8nInstance | undefined;
	// `npm run demo -- --queue`: n8n's queue mode (PostgreSQL, Redis, main, 2 workers, 2 webhook processes), fresh each time
	const queueMode = process.argv.includes('--queue');
	let cluster: QueueCluster | undefined;
	let stopping = false;
	const shutdown = async (code: number) => {
		if (stopping) return;
		stopping = true;
		console.log('\nstopping n8n and the sandbox …');
		if (cluster) await cluster.stop().catch(() => undefined);
		else await n8n?.stop().catch(() => undefined);
		stopGroup(sandbox?.child);
		await slack?.close().catch(() => undefined);
		await coreBanking?.close().catch(() => undefined);
		process.exit(code);
	};
	process.on('SIGINT', () => void shutdown(0));
	process.on('SIGTERM', () => void shutdown(0));
	process.on('SIGHUP', () => void shutdown(0));

	try {
		const sandboxPort = Number(process.env.AML_DEMO_SANDBOX_PORT ?? 0);
		sandbox = await startSandboxCli(sandboxPort);
		const sandboxChild = sandbox.child;
		process.on('exit', () => stopGroup(sandboxChild));
		console.log(
			`sandbox:  ${sandbox.baseUrl}  (token ${sandbox.tokenUrl}, control ${sandbox.controlUrl})`,
		);
		// n8n's requests to slack.com go to this stand-in (HTTPS_PROXY; see test/harness/slack.ts); its messages are printed
		slack = await startSlackStandIn(demoDir, printSlackCall);
		// example 08 tells this stand-in to release or reject a held payment; its calls are printed
		coreBanking = await startCoreBankingStandIn((call) =>
			console.log(`[core banking] ${call.path} ${JSON.stringify(call.body)}`),
		);
		console.log(
			`Slack stand-in: ${slack.url} (n8n's requests to slack.com; messages printed as [slack #channel])`,
		);

		const started = Date.now();
		if (queueMode) {
			console.log(
				'starting n8n in queue mode (PostgreSQL, Redis, main, 2 workers, 2 webhook processes) …',
			);
			cluster = await startQueueCluster({ workers: 2, webhooks: 2, env: slack.env });
			n8n = cluster.main;
			state.apiKey = undefined;
			state.credentialId = undefined;
		} else {
			const wanted = Number(process.env.AML_DEMO_PORT ?? 5678);
			const port = (await portFree(wanted)) ? wanted : await freePort();
			if (devMode) {
				// The package as a custom node package (`.n8n/custom/node_modules/<name>`), which n8n watches with
				// N8N_DEV_RELOAD. TypeScript compiles straight into it: n8n's watcher does not follow a symlink into the
				// repository, and linking the whole repository (as `n8n-node dev` does) makes n8n load files of its
				// devDependencies. Icons and codex files come from the build that ran before.
				const target = path.join(demoDir, '.n8n', 'custom', 'node_modules', 'n8n-nodes-aml');
				fs.rmSync(path.join(demoDir, '.n8n', 'custom'), { recursive: true, force: true });
				fs.mkdirSync(target, { recursive: true });
				fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(target, 'package.json'));
				fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(target, 'dist'), { recursive: true });
				const tsc = spawn(
					path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'),
					[
						'--watch',
						'--preserveWatchOutput',
						'-p',
						'tsconfig.json',
						'--outDir',
						path.join(target, 'dist'),
					],
					{
						cwd: REPO_ROOT,
						stdio: ['ignore', 'inherit', 'inherit'],
						detached: true,
					},
				);
				process.on('exit', () => stopGroup(tsc));
				console.log(
					`TypeScript in watch mode into ${target}; n8n reloads the nodes when they change`,
				);
			}
			console.log(`starting n8n on port ${port} (user folder ${demoDir}) …`);
			// a persistent user folder keeps the owner: startN8n logs in when the set-up was done before
			n8n = await startN8n({
				userFolder: demoDir,
				port,
				owner: DEFAULT_OWNER,
				apiKey: state.apiKey,
				apiKeyLabel: 'demo',
				...(devMode ? { linkPackage: false } : {}),
				env: { ...slack.env, ...(devMode ? { N8N_DEV_RELOAD: 'true' } : {}) },
			});
		}
		console.log(`n8n ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
		state.apiKey = n8n.apiKey;
		const client = new N8nClient(n8n.baseUrl, n8n.apiKey);

		const data = sandboxCredentialData(sandbox);
		let credential: CredentialRef | undefined;
		if (state.credentialId) {
			credential = await client
				.updateCredential(state.credentialId, data, 'AML sandbox')
				.catch(() => undefined);
		}
		if (!credential)
			credential = await client.createCredential('AML sandbox', 'amlOAuth2Api', data);
		state.credentialId = credential.id;
		if (!queueMode) fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));
		const test = await client
			.testCredential(credential.id)
			.catch((e: Error) => ({ status: 'Error', message: e.message }));
		console.log(
			`credential "AML sandbox" (${credential.id}) → ${sandbox.baseUrl}: test ${test.status}${test.message ? ` (${test.message})` : ''}`,
		);

		// The examples are imported as shipped; then the demo chooses credentials as a user would after import: the AML
		// credential, and stand-ins for the gate's header auth, the trigger's HMAC secret and Slack (the token reaches
		// only the Slack stand-in). Jira credentials are left to choose in the editor.
		const gateKey = { name: 'X-Core-Banking-Key', value: 'aml-demo-gate-key' };
		const signing = {
			method: 'hmac',
			hmacHeaderName: 'X-AML-Signature',
			hmacSecret: 'aml-demo-signing-secret',
		};
		// the Basic Auth login of example 08's release form (its Payment to decide names the user aml-officer as shipped)
		const formLogin = { user: 'aml-officer', password: 'aml-demo-form-password' };
		const extra: Record<string, CredentialRef> = {};
		for (const [type, name, data] of [
			['httpHeaderAuth', 'Core banking header auth (demo)', gateKey],
			['httpBasicAuth', 'AML release form login (demo)', formLogin],
			['amlWebhookApi', 'AML webhook secret (demo)', signing],
			['slackApi', 'Slack (demo stand-in)', { accessToken: 'xoxb-aml-demo-slack-stand-in' }],
		] as const) {
			const known = state.credentials?.[type];
			let ref = known
				? await client.updateCredential(known, data, name).catch(() => undefined)
				: undefined;
			if (!ref) ref = await client.createCredential(name, type, data);
			extra[type] = ref;
			state.credentials = { ...(state.credentials ?? {}), [type]: ref.id };
		}
		fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));

		const imported = await importExamples(client, {
			sandboxUrl: sandbox.baseUrl,
			coreBankingUrl: coreBanking.url,
			// the pinned sample events, as Import from File keeps them (Execute workflow then runs them at once)
			rest: await login(n8n.baseUrl, n8n.owner),
			credentials: { amlOAuth2Api: credential, ...extra },
		});
		for (const w of imported) {
			console.log(
				`example ${w.updated ? 'updated' : 'imported'}: ${w.name}  ${n8n.baseUrl}/workflow/${w.id}${w.toChoose.length ? `  (choose in the editor: ${w.toChoose.join(', ')})` : ''}`,
			);
		}
		if (!imported.length) console.log('no example workflows in examples/');

		// Publish what can run: examples started by a call (Webhook, AML Trigger) with every credential chosen. The AML
		// Triggers are registered at the sandbox as a user registers them in the AML web UI (HMAC with the demo's secret).
		const alert = await demoAlert(sandbox); // raised before the registration: the printed delivery brings it
		const tryIt: string[] = [];
		// the payment webhook of example 01, through which the hold loop's printed payments go
		const holdGatePath = String(
			(readExample('01-transaction-gate.json').nodes as Json[]).find(
				(n) => n.name === 'Core banking payment',
			)?.parameters.path,
		);
		for (const w of imported) {
			const nodes = readExample(w.file).nodes as Json[];
			const gate = nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
			const trigger = nodes.find((n) => n.type === 'n8n-nodes-aml.amlTrigger');
			if (w.toChoose.length || (!gate && !trigger)) continue;
			await client.activate(w.id);
			console.log(`published: ${w.name}`);
			if (gate) {
				const url = `${n8n.baseUrl}/webhook/${gate.parameters.path}`;
				const payment = (amount: string) =>
					`curl -s -X POST ${url} -H ${shellQuote(`${gateKey.name}: ${gateKey.value}`)} -H 'content-type: application/json' -d '{"id":"pay-'$(date +%s)$RANDOM'","personId":"cust-1001","amount":"${amount}","type":"wire_transfer","direction":"O","timestamp":"'$(date -u +%FT%TZ)'"}'`;
				tryIt.push(
					`# a payment through the gate (${w.name}): answers {"decision":"process"}`,
					payment('120.00'),
				);
				tryIt.push(
					'# one over the monitoring threshold: answers block, raises an alert (the alert examples then post to Slack)',
					payment('25000.00'),
				);
				const onboarding = nodes.find((n) => n.name === 'Core banking customer');
				if (onboarding)
					tryIt.push(
						'# a customer not yet stored: every payment of it is blocked (store refused) until it is stored through the onboarding webhook',
						`curl -s -X POST ${n8n.baseUrl}/webhook/${onboarding.parameters.path} -H ${shellQuote(`${gateKey.name}: ${gateKey.value}`)} -H 'content-type: application/json' -d '{"id":"cust-'$(date +%s)'","type":"INDIVIDUAL","attributes":{"first_name":"Anna","last_name":"Schmidt","country":"DE"}}'`,
					);
			}
			if (trigger) {
				const url = `${n8n.baseUrl}/webhook/${trigger.webhookId}/aml`;
				// decision rules are events of their own: the trigger's rule names are registered with its events
				const rules = String(trigger.parameters.options?.decisionRules ?? '')
					.split(/[\s,]+/)
					.filter(Boolean);
				await axios.post(`${sandbox.controlUrl}/webhooks`, {
					url,
					events: [...(trigger.parameters.events as string[]), ...rules],
					verification: { mode: 'hmac', secret: signing.hmacSecret },
				});
				if (rules.length) {
					// the hold loop: a held payment's alerts closed (what the officer does in example 07) run the rules
					const gateUrl = `${n8n.baseUrl}/webhook/${holdGatePath}`;
					const sandboxUrl = sandbox.baseUrl;
					const token = `$(curl -s -u ${shellQuote(`${sandbox.clientId}:${sandbox.clientSecret}`)} -d grant_type=client_credentials ${sandbox.tokenUrl} | sed 's/.*"access_token":"\\([^"]*\\)".*/\\1/')`;
					const decide = (status: string) =>
						`ANSWER=$(curl -s -X POST ${gateUrl} -H ${shellQuote(`${gateKey.name}: ${gateKey.value}`)} -H 'content-type: application/json' -d '{"id":"held-'$(date +%s)$RANDOM'","personId":"cust-1001","amount":"25000.00","type":"wire_transfer","direction":"O","timestamp":"'$(date -u +%FT%TZ)'"}'); echo "$ANSWER"; TOKEN=${token}; for ALERT in $(echo "$ANSWER" | sed -n 's/.*"alertIds":\\[\\([0-9,]*\\)\\].*/\\1/p' | tr , ' '); do curl -s -X PUT ${sandboxUrl}/api/v1/alerts/status -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"alertType":"MONITORING","alertId":'$ALERT',"status":"${status}","note":"demo"}'; echo; done`;
					tryIt.push(
						`# the hold loop (${w.name}): a payment over the threshold is held (block); its alerts closed as false positives release it: core banking is told (printed as [core banking] /payments/release)`,
						decide('CLOSED AS FALSE POSITIVE'),
						'# the same with its alerts closed as true positives: rejected, core banking told to return it ([core banking] /payments/reject)',
						decide('CLOSED AS TRUE POSITIVE'),
					);
					const form = nodes.find((n) => n.type === 'n8n-nodes-base.formTrigger');
					if (form) {
						// the hand decision: the officer's release form (a browser, or the same fields sent by curl)
						const formUrl = `${n8n.baseUrl}/form/${form.parameters.path}`;
						const byHand = (decision: string) =>
							`TX=hand-$(date +%s)$RANDOM; curl -s -X POST ${gateUrl} -H ${shellQuote(`${gateKey.name}: ${gateKey.value}`)} -H 'content-type: application/json' -d '{"id":"'$TX'","personId":"cust-1001","amount":"25000.00","type":"wire_transfer","direction":"O","timestamp":"'$(date -u +%FT%TZ)'"}'; echo; curl -s -u ${shellQuote(`${formLogin.user}:${formLogin.password}`)} ${formUrl} -F "field-0=$TX" -F field-1=cust-1001 -F field-2=${decision} -F 'field-3=demo: decided by hand'; echo`;
						tryIt.push(
							`# the officer's release form (${w.name}): open ${formUrl} in a browser (user ${formLogin.user}, password ${formLogin.password}) and release or reject a held payment by hand; the page says what was stored and whether core banking was told. The same from bash: a held payment rejected by hand ([core banking] /payments/reject)`,
							byHand('Reject'),
							'# a held payment released by hand while its alert is open: refused ("Not released"), core banking hears nothing; with its alerts closed (the hold loop above) the form releases it. A payment the Gate processed or never checked is answered "Nothing done"',
							byHand('Release'),
						);
					}
					continue;
				}
				const body = `'{"action":"ALERT_CREATED","createdTime":"'$(date -u +%FT%TZ)'","metadata":${JSON.stringify(alert).replace(/'/g, '\\u0027')}}'`;
				tryIt.push(
					`# a signed alert delivery to the AML Trigger of ${w.name} (HMAC-SHA256 of the body; alert ${alert.alertId} exists in the sandbox)`,
					`BODY=${body}; curl -s -X POST ${url} -H 'content-type: application/json' -H "${signing.hmacHeaderName}: $(printf %s "$BODY" | openssl dgst -sha256 -hmac ${shellQuote(signing.hmacSecret)} -r | cut -d' ' -f1)" --data-binary "$BODY" -w '%{http_code}\\n'`,
				);
			}
		}
		console.log(
			`transaction gate: header ${gateKey.name}: ${gateKey.value}; AML Trigger HMAC secret: ${signing.hmacSecret} (header ${signing.hmacHeaderName})`,
		);
		if (tryIt.length) console.log(['', 'Try it (bash):', ...tryIt].join('\n'));

		console.log('');
		console.log(`n8n editor:  ${n8n.baseUrl}`);
		console.log(`login:       ${n8n.owner.email}  /  ${n8n.owner.password}`);
		console.log(`n8n log:     ${n8n.logFile}`);
		if (cluster) {
			for (const w of cluster.webhooks)
				console.log(`webhook process: ${w.url}/webhook/…  (log ${w.logFile})`);
			for (const w of cluster.workers)
				console.log(`worker:          ${w.name}  (log ${w.logFile})`);
		}
		console.log('Ctrl-C (or SIGTERM) stops n8n, the sandbox and the Slack stand-in.');
		await new Promise(() => undefined);
	} catch (error) {
		console.error(`demo failed: ${(error as Error).message}`);
		await shutdown(1);
	}
}

void main();
