import { randomUUID } from 'node:crypto';

import { webhookNode, type CredentialRef } from '../../test/harness/client';
import type { BenchEnv } from '../lib';

/**
 * The n8n workflows of the payment gate scenario (`gate.ts`), each behind a Webhook that answers with the last node's
 * item. Every gate makes the requests of the Gate's clean payment in the Gate's order where n8n can: the store, then
 * the monitoring check, the screening check and the person read side by side, then the payment's open-alerts lookup.
 * n8n runs one node at a time, so HTTP Request nodes send requests side by side only as items of one node (it sends
 * every item at once): a Set and a Split Out node turn the stored payment into three items for it.
 */

export const N8N_GATES = ['gate', 'threeNode', 'http', 'httpBare'] as const;
export type GateName = (typeof N8N_GATES)[number];

type Json = Record<string, any>;
export interface Gate {
	nodes: Json[];
	/** n8n's connections; a plain chain after the Webhook when absent. */
	connections?: Json;
	/** Whether an answer says the payment may pass. */
	clear(answer: Json): boolean;
}

const fields = {
	personId: { __rl: true, value: '={{ $json.body.personId }}', mode: 'id' },
	transactionId: '={{ $json.body.id }}',
	attributesMode: 'fields',
	amount: '={{ $json.body.amount }}',
	transactionType: 'payment',
	direction: 'O',
	timestamp: '={{ $json.body.timestamp }}',
	onExisting: 'skip',
};

function node(name: string, x: number, type: string, typeVersion: number, rest: Json): Json {
	return { id: randomUUID(), name, type, typeVersion, position: [x, 0], ...rest };
}

const aml = (env: BenchEnv, name: string, x: number, parameters: Json) =>
	node(name, x, 'n8n-nodes-aml.aml', 1, { parameters, credentials: env.credentials });

/** An HTTP Request node to the service with n8n's generic OAuth2 credential; `path` and `method` may be expressions. */
function httpRequest(
	env: BenchEnv,
	credential: CredentialRef,
	name: string,
	x: number,
	method: string,
	path: string,
	jsonBody?: string,
	settings: Json = {},
): Json {
	return node(name, x, 'n8n-nodes-base.httpRequest', 4.2, {
		parameters: {
			method,
			url: `=${env.sb.baseUrl}${path}`,
			authentication: 'genericCredentialType',
			genericAuthType: 'oAuth2Api',
			...(jsonBody ? { sendBody: true, specifyBody: 'json', jsonBody } : {}),
			options: {},
		},
		credentials: { oAuth2Api: credential },
		...settings,
	});
}

const setNode = (name: string, x: number, field: string, value: string, type: string) =>
	node(name, x, 'n8n-nodes-base.set', 3.4, {
		parameters: {
			mode: 'manual',
			assignments: { assignments: [{ id: randomUUID(), name: field, value, type }] },
			includeOtherFields: false,
			options: {},
		},
	});

const payment = "$('Payment').first().json.body";
/** The person statuses the Gate holds a payment for by default. */
const HELD_STATUSES = "['SUSPENDED', 'TERMINATED', 'TERMINATED_AND_REPORTED']";

/**
 * Store, then the two checks and the person read as three items of one HTTP Request node (side by side), then the
 * payment's open-alerts lookup once (Execute Once).
 */
function httpSequence(env: BenchEnv, oauth2: CredentialRef): Json[] {
	return [
		httpRequest(
			env,
			oauth2,
			'Store',
			200,
			'POST',
			'/api/v1/persons/{{ $json.body.personId }}/transactions',
			"={{ JSON.stringify({ id: $json.body.id, attributes: { amount: $json.body.amount, type: 'payment', direction: 'O', timestamp: $json.body.timestamp } }) }}",
		),
		setNode(
			'Requests',
			400,
			'requests',
			'["monitoring-checks", "screening-checks", "person"]',
			'array',
		),
		node('Side by side', 600, 'n8n-nodes-base.splitOut', 1, {
			parameters: { fieldToSplitOut: 'requests', include: 'noOtherFields', options: {} },
		}),
		httpRequest(
			env,
			oauth2,
			'Checks',
			800,
			"={{ $json.requests === 'person' ? 'GET' : 'POST' }}",
			`/api/v1/{{ $json.requests === 'person' ? 'persons/' + ${payment}.personId : 'transactions/' + ${payment}.id + '/' + $json.requests }}`,
		),
		httpRequest(
			env,
			oauth2,
			'Lookup',
			1000,
			'GET',
			`/api/v1/transactions/{{ ${payment}.id }}/unresolved-alerts`,
			undefined,
			{ executeOnce: true },
		),
	];
}

/** n8n connections of `names` one after the other. */
function chain(names: string[]): Json {
	const connections: Json = {};
	for (let i = 0; i < names.length - 1; i++)
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	return connections;
}

const isBoolean = (leftValue: string, operation: 'true' | 'false') => ({
	id: randomUUID(),
	leftValue,
	rightValue: '',
	operator: { type: 'boolean', operation, singleValue: true },
});

/** The gates measured in the scenario. */
export function gates(env: BenchEnv, oauth2: CredentialRef): Record<GateName, Gate> {
	const check = (operation: string) => ({
		resource: 'transaction',
		operation,
		transactionId: '={{ $json.transactionId ?? $json.id }}',
		routeOutputs: false,
	});
	const decided = (a: Json) => a.decision === 'clear';
	const http = httpSequence(env, oauth2);
	return {
		// store, then both checks side by side with the person read, then the payment's open-alerts lookup
		gate: {
			nodes: [
				aml(env, 'AML Gate', 200, {
					resource: 'transaction',
					operation: 'gate',
					...fields,
					routeOutputs: false,
				}),
			],
			clear: decided,
		},
		// five requests in a row: each check node looks up the payment's open alerts after an empty answer
		threeNode: {
			nodes: [
				aml(env, 'Store', 200, { resource: 'transaction', operation: 'create', ...fields }),
				aml(env, 'Monitoring', 400, check('runMonitoringCheck')),
				aml(env, 'Screening', 600, check('runScreeningCheck')),
			],
			clear: decided,
		},
		// the Gate's requests in its order, an If on the checks' lists, the person's status and the lookup, a Set
		http: {
			nodes: [
				...http,
				node('Clear?', 1200, 'n8n-nodes-base.if', 2, {
					parameters: {
						conditions: {
							options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
							conditions: [
								isBoolean(
									`={{ $('Checks').all().every((c) => !(c.json.results ?? []).length && !(c.json.matches ?? []).length && !${HELD_STATUSES}.includes(String(c.json.status ?? '').toUpperCase())) }}`,
									'true',
								),
								isBoolean('={{ $json.hasUnresolvedAlerts }}', 'false'),
							],
							combinator: 'and',
						},
						options: {},
					},
				}),
				setNode('Clear', 1400, 'decision', 'clear', 'string'),
				setNode('Block', 1400, 'decision', 'block', 'string'),
			],
			connections: {
				...chain([...http.map((n) => n.name as string), 'Clear?']),
				'Clear?': {
					main: [
						[{ node: 'Clear', type: 'main', index: 0 }],
						[{ node: 'Block', type: 'main', index: 0 }],
					],
				},
			},
			clear: decided,
		},
		// the same requests alone: the answer is the lookup's (clear when no alert of the payment is open)
		httpBare: {
			nodes: http.map((n) => ({ ...n, id: randomUUID() })),
			clear: (a) => a.hasUnresolvedAlerts === false,
		},
	};
}

/**
 * Three HTTP Request nodes in a row, store, monitoring check, screening check, answered with the screening check's
 * item (clear when it found nothing): the node-for-node counterpart of the three-node AML gate in `gateNodes.ts`
 * (whose check nodes each add the open-alerts lookup after an empty answer).
 */
export function httpThreeInRow(env: BenchEnv, oauth2: CredentialRef): Gate {
	const transaction = `{{ ${payment}.id }}`;
	const [store] = httpSequence(env, oauth2);
	return {
		nodes: [
			store,
			httpRequest(
				env,
				oauth2,
				'Monitoring',
				400,
				'POST',
				`/api/v1/transactions/${transaction}/monitoring-checks`,
			),
			httpRequest(
				env,
				oauth2,
				'Screening',
				600,
				'POST',
				`/api/v1/transactions/${transaction}/screening-checks`,
			),
		],
		clear: (a) => Array.isArray(a.matches) && a.matches.length === 0,
	};
}

/** Publishes a gate behind a Webhook; `url` on `webhookBase` (n8n's own address, or a queue-mode webhook process). */
export async function publish(
	env: BenchEnv,
	name: string,
	gate: Gate,
	webhookBase = env.n8n.baseUrl,
): Promise<{ id: string; url: string; path: string }> {
	const path = `bench-gate-${randomUUID()}`;
	const nodes = [webhookNode(path, { name: 'Payment' }), ...gate.nodes];
	const connections: Json = {
		Payment: { main: [[{ node: gate.nodes[0].name, type: 'main', index: 0 }]] },
		...(gate.connections ?? chain(gate.nodes.map((n) => n.name as string))),
	};
	const wf = await env.client.createWorkflow({
		name: `bench gate ${name}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	});
	await env.client.activate(wf.id);
	return { id: wf.id, url: `${webhookBase}/webhook/${path}`, path };
}
