import { randomUUID } from 'node:crypto';

import { control, n8n, runAml } from '../harness/context';

/**
 * Person resource in real n8n against the sandbox. Outcomes are read from the sandbox's stored state
 * (/_control). No /reset: every id carries this run's suffix, so other suites may share the sandbox.
 */
const suffix = randomUUID().slice(0, 8);
const id = (name: string) => `pe-${name}-${suffix}`;

type Logged = { seq: number; method: string; path: string; status: number };
async function apiRequestsSince(mark: number): Promise<Logged[]> {
	return (await control.requestsSince(mark)).filter((r) => r.path.startsWith('/api'));
}

async function stored(personId: string): Promise<any> {
	return await control.get(`/persons/${encodeURIComponent(personId)}`);
}

async function createPerson(
	personId: string,
	attributes: Record<string, unknown>,
	type = 'INDIVIDUAL',
): Promise<void> {
	const run = await runAml({
		resource: 'person',
		operation: 'create',
		personId,
		personType: type,
		attributesMode: 'json',
		attributesJson: JSON.stringify(attributes),
	});
	expect(run.status).toBe('success');
}

afterAll(async () => {
	await n8n().cleanup();
});

describe('Person resource in real n8n', () => {
	test('Create stores type, named and custom attributes (JSON custom values become arrays/objects)', async () => {
		const personId = id('create');
		const run = await runAml({
			resource: 'person',
			operation: 'create',
			personId,
			personType: 'LEGAL',
			attributesMode: 'fields',
			attributeFields: {
				company_name: 'Fjord Test AS',
				country: 'NO',
				shareholders: '[{"id":"sh-1","name":"Kari Nordmann"}]',
			},
			customAttributes: { attribute: [{ key: 'customer_segment', value: 'sme' }] },
		});
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({ id: personId, type: 'LEGAL', result: 'created' });
		const person = await stored(personId);
		expect(person.type).toBe('LEGAL');
		expect(person.attributes).toEqual({
			company_name: 'Fjord Test AS',
			country: 'NO',
			shareholders: [{ id: 'sh-1', name: 'Kari Nordmann' }],
			customer_segment: 'sme',
		});
	});

	test('Create: an object or list an expression gives a named attribute field is stored as such (not as "[object Object]")', async () => {
		const personId = id('create-object');
		const run = await runAml(
			{
				resource: 'person',
				operation: 'create',
				personId,
				personType: 'INDIVIDUAL',
				attributesMode: 'fields',
				attributeFields: {
					first_name: '={{ $json.name }}',
					id_document: '={{ $json.document }}',
					shareholders: '={{ $json.owners }}',
				},
			},
			[
				{
					name: 'Ola',
					document: { type: 'passport', number: 'P123' },
					owners: [{ id: 'sh-1' }, { id: 'sh-2' }],
				},
			],
		);
		expect(run.status).toBe('success');
		expect((await stored(personId)).attributes).toEqual({
			first_name: 'Ola',
			id_document: { type: 'passport', number: 'P123' },
			shareholders: [{ id: 'sh-1' }, { id: 'sh-2' }],
		});
	});

	test('Create with an existing id: error (422), skip (unchanged), replace (update) and merge (patch) as stored', async () => {
		const personId = id('exists');
		await createPerson(personId, { first_name: 'Eva', last_name: 'Lind', city: 'Oslo' });
		const base = {
			resource: 'person',
			operation: 'create',
			personId,
			personType: 'INDIVIDUAL',
			attributesMode: 'json',
		};

		const error = await runAml({
			...base,
			attributesJson: '{"city":"Bergen"}',
			onExisting: 'error',
		});
		expect(error.status).toBe('error');
		expect(error.error?.message).toMatch(/Already exists/);

		const skip = await runAml({ ...base, attributesJson: '{"city":"Bergen"}', onExisting: 'skip' });
		expect(skip.outputs[0][0].result).toBe('skipped');
		expect((await stored(personId)).attributes).toEqual({
			first_name: 'Eva',
			last_name: 'Lind',
			city: 'Oslo',
		});

		const merge = await runAml({
			...base,
			attributesJson: '{"city":"Bergen"}',
			onExisting: 'merge',
		});
		expect(merge.outputs[0][0].result).toBe('merged');
		expect((await stored(personId)).attributes).toEqual({
			first_name: 'Eva',
			last_name: 'Lind',
			city: 'Bergen',
		});

		const update = await runAml({
			...base,
			personType: 'UNDEFINED',
			attributesJson: '{"city":"Tromsø"}',
			onExisting: 'replace',
		});
		expect(update.outputs[0][0].result).toBe('replaced');
		const replaced = await stored(personId);
		expect(replaced.type).toBe('UNDEFINED');
		expect(replaced.attributes).toEqual({ city: 'Tromsø' });
	});

	test('Update (PATCH) merges the given attributes (array items by id) and keeps the others; type kept unless chosen', async () => {
		const personId = id('patch');
		await createPerson(
			personId,
			{
				company_name: 'Merge AB',
				country: 'SE',
				shareholders: [
					{ id: 'a', name: 'Old Name' },
					{ id: 'b', name: 'Other' },
				],
			},
			'LEGAL',
		);
		const run = await runAml({
			resource: 'person',
			operation: 'update',
			personId,
			attributesMode: 'json',
			attributesJson: JSON.stringify({
				city: 'Malmö',
				shareholders: [{ id: 'a', name: 'New Name' }],
			}),
		});
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toEqual({
			id: personId,
			attributes: { city: 'Malmö', shareholders: [{ id: 'a', name: 'New Name' }] },
			result: 'updated',
		});
		const person = await stored(personId);
		expect(person.type).toBe('LEGAL');
		expect(person.attributes).toEqual({
			company_name: 'Merge AB',
			country: 'SE',
			city: 'Malmö',
			shareholders: [
				{ id: 'a', name: 'New Name' },
				{ id: 'b', name: 'Other' },
			],
		});

		// Nothing to change is bad input: stopped before any request.
		const mark = await control.mark();
		const empty = await runAml({
			resource: 'person',
			operation: 'update',
			personId,
			attributesMode: 'json',
			attributesJson: '{}',
		});
		expect(empty.status).toBe('error');
		expect(empty.error?.message).toMatch(/Item 0: "Attributes" must name at least one attribute/);
		expect(await apiRequestsSince(mark)).toHaveLength(0);
	});

	test('Replace (PUT) replaces type and all attributes', async () => {
		const personId = id('update');
		await createPerson(personId, {
			first_name: 'Old',
			last_name: 'Person',
			email: 'old@example.com',
		});
		const run = await runAml(
			{
				resource: 'person',
				operation: 'replace',
				personId,
				personType: 'INDIVIDUAL',
				attributesMode: 'input',
				excludeInputFields: 'id',
			},
			[{ id: personId, first_name: 'New', last_name: 'Person', dob: '1990-02-03' }],
		);
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({ id: personId, result: 'replaced' });
		const person = await stored(personId);
		expect(person.attributes).toEqual({
			first_name: 'New',
			last_name: 'Person',
			dob: '1990-02-03',
		});
	});

	test('Search: filters with AND/OR and NOT, Return All over more than 50 seeded persons, Limit, Simplify, order', async () => {
		const marker = `Srch${suffix}`;
		const seeded = Array.from({ length: 57 }, (_, i) => ({
			id: id(`s${String(i).padStart(2, '0')}`),
			first_name: `F${String(i).padStart(2, '0')}`,
			last_name: marker,
			country: i % 3 === 0 ? 'FI' : 'DK',
		}));
		const seed = await runAml(
			{
				resource: 'person',
				operation: 'create',
				personId: '={{ $json.id }}',
				personType: 'INDIVIDUAL',
				attributesMode: 'input',
				excludeInputFields: 'id',
			},
			seeded,
		);
		expect(seed.status).toBe('success');
		expect(seed.outputs[0]).toHaveLength(57);

		const mark = await control.mark();
		const all = await runAml({
			resource: 'person',
			operation: 'search',
			category: 'CUSTOMER',
			filters: { filter: [{ attribute: 'last_name', operator: 'IS_EXACTLY', query: marker }] },
			logicalOperator: 'AND',
			returnAll: true,
			options: { orderBy: 'first_name', direction: 'DESC' },
		});
		expect(all.status).toBe('success');
		expect(all.outputs[0]).toHaveLength(57);
		expect(all.outputs[0][0].attributes.first_name).toBe('F56');
		expect(all.outputs[0][56].attributes.first_name).toBe('F00');
		const pages = (await apiRequestsSince(mark)).filter((r) => r.path === '/api/v2/persons/search');
		expect(pages).toHaveLength(2);

		// AND with a negated filter: the marker persons not in FI (38 of 57).
		const notFi = await runAml({
			resource: 'person',
			operation: 'search',
			category: 'CUSTOMER',
			filters: {
				filter: [
					{ attribute: 'last_name', operator: 'IS_EXACTLY', query: marker },
					{ attribute: 'country', operator: 'IS_EXACTLY', query: 'FI', not: true },
				],
			},
			logicalOperator: 'AND',
			returnAll: true,
			simplify: true,
		});
		expect(notFi.outputs[0]).toHaveLength(38);
		expect(notFi.outputs[0][0]).toEqual({
			id: expect.stringMatching(/^pe-s/),
			type: 'INDIVIDUAL',
			name: expect.stringMatching(new RegExp(`^F\\d\\d ${marker}$`)),
			status: 'NEW',
			category: 'CUSTOMER',
			country: 'DK',
			createdTime: expect.any(String),
		});

		// OR: either of two first names of the marker set; EXISTS needs no text.
		const either = await runAml({
			resource: 'person',
			operation: 'search',
			category: 'CUSTOMER',
			filters: {
				filter: [
					{ attribute: 'first_name', operator: 'IS_EXACTLY', query: 'F01' },
					{ attribute: 'first_name', operator: 'IS_EXACTLY', query: 'F02' },
				],
			},
			logicalOperator: 'OR',
			returnAll: true,
		});
		expect(either.outputs[0].filter((p) => p.attributes.last_name === marker)).toHaveLength(2);

		const limited = await runAml({
			resource: 'person',
			operation: 'search',
			category: 'CUSTOMER',
			filters: {
				filter: [
					{ attribute: 'last_name', operator: 'STARTS_WITH', query: marker },
					{ attribute: 'dob', operator: 'NOT_EXISTS' },
				],
			},
			returnAll: false,
			limit: 7,
		});
		expect(limited.outputs[0]).toHaveLength(7);

		// Category is sent: the seeded counterparty is found only in COUNTERPARTY.
		const counterparty = await runAml({
			resource: 'person',
			operation: 'search',
			category: 'COUNTERPARTY',
			filters: { filter: [{ attribute: 'last_name', operator: 'IS_EXACTLY', query: 'Silva' }] },
			returnAll: true,
		});
		expect(counterparty.outputs[0].map((p) => p.id)).toContain('cp-2001');
	});

	test('Search bad input (6 filters, empty text, orderBy over 200 characters) fails naming item and field, nothing sent', async () => {
		const mark = await control.mark();
		const six = await runAml({
			resource: 'person',
			operation: 'search',
			category: 'CUSTOMER',
			filters: {
				filter: Array.from({ length: 6 }, (_, i) => ({ attribute: `a${i}`, operator: 'EXISTS' })),
			},
			returnAll: true,
		});
		expect(six.status).toBe('error');
		expect(six.error?.message).toMatch(/Item 0: "Filters" may have at most 5 conditions \(has 6\)/);

		const emptyText = await runAml({
			resource: 'person',
			operation: 'search',
			category: 'CUSTOMER',
			filters: { filter: [{ attribute: 'last_name', operator: 'CONTAINS', query: '' }] },
		});
		expect(emptyText.error?.message).toMatch(/Item 0: "Filters\[1\]\.Text" must not be empty/);

		const longOrder = await runAml({
			resource: 'person',
			operation: 'search',
			category: 'CUSTOMER',
			options: { orderBy: 'x'.repeat(201) },
		});
		expect(longOrder.error?.message).toMatch(
			/Item 0: "Order By" may have at most 200 characters \(has 201\)/,
		);
		expect(await apiRequestsSince(mark)).toHaveLength(0);
	});

	test('Delete queues the person (asynchronous) and says so (deleted: true, deletion: queued); 403 when deletion is not enabled', async () => {
		const personId = id('delete');
		await createPerson(personId, { first_name: 'Del', last_name: 'Me' });
		const run = await runAml({ resource: 'person', operation: 'delete', personId });
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toEqual({ id: personId, deleted: true, deletion: 'queued' });
		expect((await stored(personId)).queuedForDeletion).toBe(true);

		const other = id('nodelete');
		await createPerson(other, { first_name: 'Keep', last_name: 'Me' });
		await control.post('/config', { personDeletionEnabled: false });
		try {
			const denied = await runAml({ resource: 'person', operation: 'delete', personId: other });
			expect(denied.status).toBe('error');
			expect(denied.error?.message).toMatch(
				/Insufficient permissions.*person deletion through the API not enabled/,
			);
		} finally {
			await control.post('/config', { personDeletionEnabled: true });
		}
		expect((await stored(other)).queuedForDeletion).toBe(false);
	});

	test('Set Status (deprecated v1) changes status and category; Get Status History shows it (full and simplified)', async () => {
		const personId = id('status');
		await createPerson(personId, { first_name: 'Stat', last_name: 'Us' });
		const set = await runAml({
			resource: 'person',
			operation: 'setStatus',
			personId,
			setFields: { status: 'REVIEWED', category: 'COUNTERPARTY' },
		});
		expect(set.status).toBe('success');
		expect(set.outputs[0][0]).toMatchObject({
			id: personId,
			status: 'REVIEWED',
			category: 'COUNTERPARTY',
		});
		const person = await stored(personId);
		expect(person.status).toBe('REVIEWED');
		expect(person.category).toBe('COUNTERPARTY');

		const history = await runAml({ resource: 'person', operation: 'getStatusHistory', personId });
		expect(history.status).toBe('success');
		expect(history.outputs[0][0].personId).toBe(personId);
		expect(history.outputs[0][0].statuses.map((s: any) => s.status)).toEqual(['NEW', 'REVIEWED']);

		const simple = await runAml({
			resource: 'person',
			operation: 'getStatusHistory',
			personId,
			simplify: true,
		});
		expect(simple.outputs[0][0]).toMatchObject({ personId, currentStatus: 'REVIEWED' });
		expect(simple.outputs[0][0].statuses).toEqual([
			{ status: 'NEW', startTime: expect.any(String), endTime: expect.any(String) },
			{ status: 'REVIEWED', startTime: expect.any(String), endTime: null },
		]);

		const mark = await control.mark();
		const nothing = await runAml({
			resource: 'person',
			operation: 'setStatus',
			personId,
			setFields: {},
		});
		expect(nothing.error?.message).toMatch(
			/Item 0: "Fields to Set" must contain at least one field/,
		);
		expect(await apiRequestsSince(mark)).toHaveLength(0);
	});

	test('Get Risk of a person in a high-risk country (full and simplified)', async () => {
		const personId = id('risk');
		await createPerson(personId, { first_name: 'Risky', last_name: 'Testperson', country: 'IR' });
		const run = await runAml({ resource: 'person', operation: 'getRisk', personId });
		expect(run.status).toBe('success');
		expect(run.outputs[0][0]).toMatchObject({ personId, finalRisk: 'HIGH' });
		expect(run.outputs[0][0].risks.map((r: any) => r.factor).join(' ')).toMatch(/COUNTRY/);

		const simple = await runAml({
			resource: 'person',
			operation: 'getRisk',
			personId,
			simplify: true,
		});
		expect(simple.outputs[0][0]).toMatchObject({
			personId,
			finalRisk: 'HIGH',
			overrideLevel: null,
		});
		expect(simple.outputs[0][0].riskFactors).toContainEqual(
			expect.objectContaining({ factor: expect.stringMatching(/COUNTRY/), level: 'HIGH' }),
		);

		const unresolved = await runAml({
			resource: 'person',
			operation: 'hasUnresolvedAlerts',
			personId,
		});
		expect(unresolved.outputs[0][0]).toEqual({
			personId,
			decision: 'block',
			reason: 'unresolved alerts',
			hasUnresolvedAlerts: true,
		});
	});

	test('Add Note stores the note (with and without own id and time); bad note input sends nothing', async () => {
		const personId = id('note');
		await createPerson(personId, { first_name: 'Note', last_name: 'Taker' });
		const plain = await runAml({
			resource: 'person',
			operation: 'addNote',
			personId,
			content: 'Called the customer: salary payment',
		});
		expect(plain.status).toBe('success');
		expect(plain.outputs[0][0]).toMatchObject({
			personId,
			content: 'Called the customer: salary payment',
			id: expect.any(Number),
		});

		const noteId = Math.floor(Math.random() * 1e9) + 1e9;
		const own = await runAml({
			resource: 'person',
			operation: 'addNote',
			personId,
			content: 'Documents received',
			options: { noteId: String(noteId), createdTime: '2024-05-01T12:30:00.123456Z' },
		});
		expect(own.outputs[0][0]).toEqual({
			personId,
			id: noteId,
			content: 'Documents received',
			createdTime: '2024-05-01T12:30:00.123456Z',
		});
		const notes = await control.get<any[]>('/notes', { personId });
		expect(notes.map((n) => n.content)).toEqual([
			'Called the customer: salary payment',
			'Documents received',
		]);
		expect(notes[1].id).toBe(noteId);

		const mark = await control.mark();
		const blank = await runAml({
			resource: 'person',
			operation: 'addNote',
			personId,
			content: '   ',
		});
		expect(blank.error?.message).toMatch(/Item 0: "Content" must not be empty/);
		const badTime = await runAml({
			resource: 'person',
			operation: 'addNote',
			personId,
			content: 'x',
			options: { createdTime: '2024-05-01T12:30:00.1234567Z' },
		});
		expect(badTime.error?.message).toMatch(
			/Item 0: "Created Time" may have at most 6 fractional-second digits \(has 7\)/,
		);
		const badId = await runAml({
			resource: 'person',
			operation: 'addNote',
			personId,
			content: 'x',
			options: { noteId: '1.5' },
		});
		expect(badId.error?.message).toMatch(/Item 0: "Note ID" must be a whole number/);
		expect(await apiRequestsSince(mark)).toHaveLength(0);
	});

	test('Run Monitoring Check raises an alert for a high-risk person, none for a clean one; all-results is sent', async () => {
		const risky = id('mon-kp');
		const clean = id('mon-de');
		await createPerson(risky, { first_name: 'Mon', last_name: 'Itor', country: 'KP' });
		await createPerson(clean, { first_name: 'Clean', last_name: 'Person', country: 'DE' });
		const mark = await control.mark();
		const run = await runAml(
			{
				resource: 'person',
				operation: 'runMonitoringCheck',
				personId: '={{ $json.id }}',
				allResults: true,
			},
			[{ id: risky }, { id: clean }],
		);
		expect(run.status).toBe('success');
		const [hit, none] = run.outputs[0];
		expect(hit).toMatchObject({ personId: risky, decision: 'block', alertCreated: true });
		expect(hit.results[0]).toMatchObject({ reason: 'High-risk country', scenarioType: 'ONLINE' });
		expect(none).toEqual({
			personId: clean,
			decision: 'clear',
			alertCreated: false,
			alertIds: [],
			results: [],
		});
		const alerts = await control.get<any[]>('/alerts');
		expect(
			alerts.filter((a) => a.personId === risky && a.scenarioType === 'ONLINE').map((a) => a.id),
		).toEqual(hit.alertIds);
		const calls = (await apiRequestsSince(mark)).filter((r) =>
			r.path.endsWith('/monitoring-checks'),
		);
		expect(calls).toHaveLength(2);
		const log = await control.requestsSince(mark);
		expect(log.find((r) => r.path.endsWith('/monitoring-checks'))?.query).toContain(
			'all-results=true',
		);
	});

	test('Run Screening Check: a listed name matches (screening alert stored), a clean one does not', async () => {
		const listed = id('scr-hit');
		const clean = id('scr-clean');
		await createPerson(listed, { first_name: 'Viktor', last_name: 'Drabenko' });
		await createPerson(clean, { first_name: 'Ordinary', last_name: 'Customer' });
		const run = await runAml(
			{ resource: 'person', operation: 'runScreeningCheck', personId: '={{ $json.id }}' },
			[{ id: listed }, { id: clean }],
		);
		expect(run.status).toBe('success');
		const [hit, none] = run.outputs[0];
		expect(hit).toMatchObject({ personId: listed, decision: 'block', matched: true });
		expect(hit.matches[0]).toMatchObject({ inputData: 'Viktor Drabenko', checkType: 'SANCTION' });
		expect(none).toEqual({
			personId: clean,
			decision: 'clear',
			matched: false,
			alertIds: [],
			matches: [],
		});
		const screening = await control.get<any[]>('/screening-alerts');
		expect(screening.filter((a) => a.personId === listed).map((a) => a.id)).toEqual(hit.alertIds);
	});

	test('IDs are never altered or resolved: dots-only and padded IDs fail before any request; a whole number is the same ID as text', async () => {
		for (const [parameters, field] of [
			[
				{
					resource: 'transaction',
					operation: 'update',
					personId: 'cust-1001',
					transactionId: '={{ $json.id }}',
					attributesMode: 'json',
					attributesJson: '{"amount":"1.00"}',
				},
				'Transaction ID',
			],
			[{ resource: 'person', operation: 'get', personId: '={{ $json.id }}' }, 'Person ID'],
			[
				{
					resource: 'customList',
					operation: 'archive',
					customListId: '9b1c2d3e-4f50-4a61-8b72-c3d4e5f60718',
					recordId: '={{ $json.id }}',
				},
				'Record ID',
			],
		] as const) {
			for (const bad of ['..', '.', ' cust-1001']) {
				const mark = await control.mark();
				const run = await runAml(parameters, [{ id: bad }]);
				expect(run.status).toBe('error');
				expect(run.error?.message).toContain(`Item 0: "${field}"`);
				expect(await apiRequestsSince(mark)).toHaveLength(0);
			}
		}
		const numeric = 900000000 + Math.floor(Math.random() * 99999999);
		const created = await runAml(
			{
				resource: 'person',
				operation: 'create',
				personId: '={{ $json.customerId }}',
				personType: 'INDIVIDUAL',
				attributesMode: 'json',
				attributesJson: '{"first_name":"Numeric"}',
			},
			[{ customerId: numeric }],
		);
		expect(created.status).toBe('success');
		expect(await control.get<any>(`/persons/${numeric}`)).toMatchObject({ id: String(numeric) });
	});

	test('bad person id fails before any request, naming item and field', async () => {
		const mark = await control.mark();
		const run = await runAml(
			{ resource: 'person', operation: 'getRisk', personId: '={{ $json.id }}' },
			[{ id: 'cust-1001' }, { id: 'bad/id' }],
		);
		expect(run.status).toBe('error');
		expect(run.error?.message).toMatch(
			/Item 1: "Person ID" may only contain a-z, A-Z, 0-9, hyphen, underscore, colon and dot \(found "\/"\)/,
		);
		expect(await apiRequestsSince(mark)).toHaveLength(0);
	});
});
