import Busboy from 'busboy';
import { parse } from 'csv-parse';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

import { fail, ok, type Reply } from './api';
import * as rules from './rules';
import type { Person, State, Transaction } from './state';
import { now } from './state';

const MAX_BYTES = 100 * 1024 * 1024;
const BATCH = 1000;
const REQUIRED: Record<string, string[]> = {
	PERSON: ['id', 'type'],
	TRANSACTION: ['id', 'person_id', 'timestamp', 'amount', 'direction'],
	TRANSACTION_UPDATE: ['id', 'person_id'],
	PERSON_RELATION: ['person_id', 'related_person_id', 'relation_type'],
};

type Row = Record<string, string>;

/** Receives the multipart file as a stream; rows are kept (not the raw bytes) for asynchronous processing. */
export async function receiveUpload(state: State, req: IncomingMessage, type: string | null): Promise<Reply> {
	if (!type || !rules.UPLOAD_TYPES.includes(type)) return fail(400, 'type must be PERSON, PERSON_RELATION, TRANSACTION or TRANSACTION_UPDATE');
	if (!String(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) return fail(400, 'multipart/form-data with a file part is required');
	if (Number(req.headers['content-length'] ?? 0) > MAX_BYTES + 64 * 1024) return fail(413, 'file exceeds 100M');
	return await new Promise<Reply>((resolve) => {
		const bb = Busboy({ headers: req.headers, limits: { fileSize: MAX_BYTES, files: 1 } });
		let fileName = '';
		let parsed: Promise<{ rows: Row[]; header: string[]; error?: string }> | undefined;
		let tooLarge = false;
		bb.on('file', (name, stream, info) => {
			if (name !== 'file') {
				stream.resume();
				return;
			}
			fileName = info.filename ?? "upload.csv";
			stream.on('limit', () => (tooLarge = true));
			parsed = parseCsv(stream);
		});
		bb.on('close', async () => {
			if (!parsed) return resolve(fail(400, 'the multipart field "file" is required'));
			const result = await parsed;
			if (tooLarge) return resolve(fail(413, 'file exceeds 100M'));
			const upload = { id: state.nextId('upload'), fileName, type, status: 'PROCESSING', reason: null as string | null };
			state.uploads.set(upload.id, upload);
			setTimeout(() => process(state, upload, result), 50).unref();
			resolve(ok({ id: upload.id, fileName, type }, 202));
		});
		bb.on('error', () => resolve(fail(400, 'malformed multipart body')));
		req.pipe(bb);
	});
}

function parseCsv(stream: Readable): Promise<{ rows: Row[]; header: string[]; error?: string }> {
	return new Promise((resolve) => {
		const rows: Row[] = [];
		let header: string[] = [];
		const parser = parse({ columns: (h: string[]) => ((header = h.map((x) => x.trim())), header), skip_empty_lines: true, bom: true, relax_column_count: false });
		parser.on('data', (row: Row) => rows.push(row));
		parser.on('error', (e) => {
			stream.resume();
			resolve({ rows, header, error: `malformed CSV: ${e.message}` });
		});
		parser.on('end', () => resolve({ rows, header }));
		stream.pipe(parser);
	});
}

function cell(value: string): unknown {
	const t = value.trim();
	if ((t.startsWith('[') && t.endsWith(']')) || (t.startsWith('{') && t.endsWith('}'))) {
		try {
			return JSON.parse(t);
		} catch {
			return value;
		}
	}
	return value;
}

function process(state: State, upload: { status: string; reason: string | null; type: string }, file: { rows: Row[]; header: string[]; error?: string }): void {
	const failWith = (reason: string) => {
		upload.status = 'FAILED';
		upload.reason = reason;
	};
	if (file.error) return failWith(file.error);
	const missing = REQUIRED[upload.type].filter((c) => !file.header.includes(c) && !file.header.includes(c.replace(/_(\w)/g, (_, x) => x.toUpperCase())));
	if (missing.length) return failWith(`missing required column(s): ${missing.join(', ')}`);
	const get = (row: Row, key: string) => row[key] ?? row[key.replace(/_(\w)/g, (_, x) => x.toUpperCase())];
	// Validation: the first error fails the whole file, nothing stored.
	for (let i = 0; i < file.rows.length; i++) {
		const row = file.rows[i];
		const line = i + 2;
		if (upload.type !== 'PERSON_RELATION' && rules.idError(get(row, 'id'))) return failWith(`line ${line}: invalid id "${get(row, 'id')}"`);
		if (upload.type === 'PERSON' && !rules.PERSON_TYPES.includes(get(row, 'type'))) return failWith(`line ${line}: invalid type "${get(row, 'type')}"`);
		if (upload.type === 'TRANSACTION') {
			const ts = rules.timestampError(get(row, 'timestamp'));
			if (ts) return failWith(`line ${line}: ${ts}`);
			if (rules.amountError(get(row, 'amount'))) return failWith(`line ${line}: amount must be a decimal number`);
		}
	}
	// Upload phase, batches of 1000: an error in a batch stops the upload; earlier batches stay stored.
	let lastSaved: string | null = null;
	for (let start = 0; start < file.rows.length; start += BATCH) {
		const batch = file.rows.slice(start, start + BATCH);
		const problem = batchProblem(state, upload.type, batch, get);
		if (problem) {
			upload.status = 'PARTIALLY_COMPLETED';
			upload.reason = `Duplicate or invalid entity with id ${problem.id}: ${problem.why}. Last saved id: ${lastSaved ?? 'none'}. First id not saved: ${get(batch[0], 'id') ?? get(batch[0], 'person_id')}`;
			return;
		}
		for (const row of batch) store(state, upload.type, row, get);
		lastSaved = get(batch[batch.length - 1], 'id') ?? get(batch[batch.length - 1], 'person_id');
	}
	upload.status = 'COMPLETED';
	upload.reason = null;
}

function batchProblem(state: State, type: string, batch: Row[], get: (r: Row, k: string) => string): { id: string; why: string } | undefined {
	const seen = new Set<string>();
	for (const row of batch) {
		const id = get(row, 'id');
		if (type === 'PERSON') {
			if (state.persons.has(id) || seen.has(id)) return { id, why: 'duplicate id' };
		} else if (type === 'TRANSACTION') {
			if (state.transactions.has(id) || seen.has(id)) return { id, why: 'duplicate id' };
			if (!state.persons.has(get(row, 'person_id'))) return { id, why: `person ${get(row, 'person_id')} does not exist` };
		} else if (type === 'TRANSACTION_UPDATE') {
			const tx = state.transactions.get(id);
			if (!tx || tx.personId !== get(row, 'person_id')) return { id, why: 'transaction does not exist' };
		} else if (type === 'PERSON_RELATION') {
			const pid = get(row, 'person_id');
			if (!state.persons.has(pid) || !state.persons.has(get(row, 'related_person_id'))) return { id: pid, why: 'person does not exist' };
		}
		seen.add(id);
	}
	return undefined;
}

function store(state: State, type: string, row: Row, get: (r: Row, k: string) => string): void {
	const reserved = new Set(['id', 'type', 'person_id', 'personId']);
	const attributes = Object.fromEntries(Object.entries(row).filter(([k]) => !reserved.has(k)).map(([k, v]) => [k, cell(v)]));
	if (type === 'PERSON') {
		const p: Person = {
			id: get(row, 'id'), type: get(row, 'type'), attributes, status: 'NEW', category: 'CUSTOMER', createdTime: now(), snoozeConfiguration: null,
			scenarioSnoozeConfigurations: [], statuses: [], finalRisk: 'LOW', finalRiskScore: 10, finalRiskCreatedTime: now(), risks: [],
		};
		state.persons.set(p.id, p);
	} else if (type === 'TRANSACTION') {
		const tx: Transaction = { id: get(row, 'id'), personId: get(row, 'person_id'), attributes, createdTime: now() };
		state.addTransaction(tx);
	} else if (type === 'TRANSACTION_UPDATE') {
		const tx = state.transactions.get(get(row, 'id'));
		if (tx) for (const [k, v] of Object.entries(attributes)) if (k === 'status' || !(k in tx.attributes)) tx.attributes[k] = v;
	}
}

export function uploadStatus(state: State, id: string): Reply {
	if (!/^\d+$/.test(id) || Number(id) < 1) return fail(400, 'uploadId must be an integer >= 1');
	const u = state.uploads.get(Number(id));
	if (!u) return fail(404, `Upload ${id} not found`);
	return ok({ status: u.status, reason: u.reason });
}
