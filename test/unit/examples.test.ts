import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The example workflows as files (what is behaviour is tested in real n8n: test/e2e/examples.test.ts): every example
 * names the error-notification example in its steps, the steps that download, read or notify retry or report, the
 * stickies leave the nodes visible, and each example's choice of kept executions is stated in its sticky.
 */
type Node = {
	name: string;
	type: string;
	position: [number, number];
	parameters: Record<string, any>;
	retryOnFail?: boolean;
	onError?: string;
	alwaysOutputData?: boolean;
};
type Workflow = {
	name: string;
	nodes: Node[];
	connections: Record<string, { main?: Array<Array<{ node: string }>> }>;
	settings?: Record<string, unknown>;
};

const dir = path.resolve(__dirname, '..', '..', 'examples');
const files = fs
	.readdirSync(dir)
	.filter((f) => f.endsWith('.json'))
	.sort();
const read = (file: string) =>
	JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Workflow;
const stickies = (w: Workflow) => w.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote');
const text = (w: Workflow) =>
	stickies(w)
		.map((n) => String(n.parameters.content))
		.join('\n');
const ERROR_EXAMPLE = 'AML: error notification';

describe('example files', () => {
	test('the error-notification example is shipped: an Error Trigger whose message reaches Slack, which it retries', () => {
		const w = read('10-error-notification.json');
		expect(w.name).toBe(ERROR_EXAMPLE);
		expect(w.nodes.map((n) => n.type)).toEqual(
			expect.arrayContaining(['n8n-nodes-base.errorTrigger', 'n8n-nodes-base.slack']),
		);
		expect(w.nodes.find((n) => n.type === 'n8n-nodes-base.slack')?.retryOnFail).toBe(true);
	});

	test.each(files.filter((f) => !f.startsWith('10-')))(
		'%s names the error-notification example (Settings → Error Workflow)',
		(file) => {
			const notes = text(read(file));
			expect(notes).toContain(`*${ERROR_EXAMPLE}*`);
			expect(notes).toMatch(/\*\*Settings\*\* → \*\*Error Workflow\*\*/);
		},
	);

	test.each(files)(
		'%s: every download and AML read retries (Retry On Fail); every Slack post and core banking call retries; a download reports its failure',
		(file) => {
			const w = read(file);
			for (const node of w.nodes) {
				const download =
					node.type === 'n8n-nodes-base.httpRequest' &&
					node.parameters.options?.response?.response?.responseFormat === 'file';
				const amlRead =
					node.type === 'n8n-nodes-aml.aml' && /^get/.test(String(node.parameters.operation));
				const notify =
					(node.type === 'n8n-nodes-base.slack' && node.parameters.operation !== 'sendAndWait') ||
					node.type === 'n8n-nodes-base.httpRequest';
				if (download || amlRead || notify)
					expect({ node: node.name, retryOnFail: node.retryOnFail }).toEqual({
						node: node.name,
						retryOnFail: true,
					});
				if (download) {
					expect({ node: node.name, onError: node.onError }).toEqual({
						node: node.name,
						onError: 'continueErrorOutput',
					});
					expect(w.connections[node.name]?.main?.[1]?.length ?? 0).toBeGreaterThan(0);
				}
			}
		},
	);

	test.each(files)(
		'%s: workflow settings choose which executions are kept, and the sticky says so',
		(file) => {
			const w = read(file);
			expect(['all', 'none']).toContain(w.settings?.saveDataSuccessExecution);
			expect(w.settings?.saveDataErrorExecution).toBe('all');
			const said = /\*\*Executions kept:\*\* ([^\n]*)/.exec(text(w))?.[1] ?? '';
			expect(said).toMatch(
				w.settings?.saveDataSuccessExecution === 'none'
					? /^(failed runs only|none of a successful run)/
					: /^every run/,
			);
		},
	);

	test.each(files)('%s: no sticky note covers a node', (file) => {
		const w = read(file);
		// a node's box on the canvas is about 100 × 100 from its position
		const covered = stickies(w).flatMap((sticky) => {
			const [x, y] = sticky.position;
			const width = Number(sticky.parameters.width ?? 240);
			const height = Number(sticky.parameters.height ?? 160);
			return w.nodes
				.filter((n) => n.type !== 'n8n-nodes-base.stickyNote')
				.filter(
					(n) =>
						n.position[0] + 100 > x &&
						n.position[0] < x + width &&
						n.position[1] + 100 > y &&
						n.position[1] < y + height,
				)
				.map((n) => `${sticky.name} covers ${n.name}`);
		});
		expect(covered).toEqual([]);
	});

	test('example 09 listens only to the events its steps need, never to all', () => {
		const trigger = read('09-exactly-once-queue-mode.json').nodes.find(
			(n) => n.type === 'n8n-nodes-aml.amlTrigger',
		)!;
		expect(trigger.parameters.events).not.toContain('*');
		expect(trigger.parameters.events.length).toBeGreaterThan(0);
	});

	test('a screening alert with no hits still reaches its message: the hits read outputs an item when it finds none', () => {
		for (const file of ['03-alert-notification.json', '06-alert-ticket-jira.json'])
			expect(read(file).nodes.find((n) => n.name === 'Get screening hits')?.alwaysOutputData).toBe(
				true,
			);
	});
});
