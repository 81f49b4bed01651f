import Busboy from 'busboy';
import { parse } from 'csv-parse';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';

import type { Ctx } from './context';
import { fail, ok, type Reply } from './http';
import { now, type Json, type Upload } from './store';
import * as v from './validation';

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const BATCH_SIZE = 1000;

const REQUIRED: Record<string, string[]> = {
	PERSON: ['id', 'type'],
	TRANSACTION: ['id', 'person_id', 'timestamp', 'amount', 'direction'],
	TRANSACTION_UPDATE: ['id', 'person_id'],
	PERSON_RELATION: ['person_id', 'related_person_id', 'relation_type'],
};

const camel = (s: string) => s.replace(/_(\w)/g, (_, x: string) => x.toUpperCase());

type Row = Record<string, string>;

/**
 * CSV upload (operation 1) and its status (operation 2). The multipart `file` part is streamed to a temporary file
 * (never held in memory); 202 `{id, fileName, type}` answers once it is received. Processing is asynchronous:
 * PROCESSING → validation pass (streamed; first error → FAILED, nothing stored) → upload pass in batches of 1000
 * (an error in a batch → PARTIALLY_COMPLETED; earlier batches stay stored) → COMPLETED.
 */
export class Uploads {
	private temp = new Set<string>();
	private closed = false;

	constructor(private ctx: () => Ctx) {}

	close(): void {
		this.closed = true;
		for (const f of this.temp) fs.rmSync(f, { force: true });
		this.temp.clear();
	}

	reset(): void {
		this.close();
		this.closed = false;
	}

	async receive(req: IncomingMessage, type: string | null): Promise<Reply> {
		if (!type || !v.UPLOAD_TYPES.includes(type))
			return drained(
				req,
				fail(400, `type is required and must be one of ${v.UPLOAD_TYPES.join(', ')}`),
			);
		if (
			!String(req.headers['content-type'] ?? '')
				.toLowerCase()
				.startsWith('multipart/form-data')
		)
			return drained(req, fail(400, 'the body must be multipart/form-data with a "file" part'));
		if (Number(req.headers['content-length'] ?? 0) > MAX_UPLOAD_BYTES + 1024 * 1024)
			return drained(req, fail(413, 'the file exceeds the 100M upload limit'));
		const file = path.join(
			os.tmpdir(),
			`aml-sandbox-upload-${process.pid}-${randomBytes(6).toString('hex')}.csv`,
		);
		this.temp.add(file);
		let bb: ReturnType<typeof Busboy>;
		try {
			bb = Busboy({ headers: req.headers, limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } });
		} catch {
			return drained(req, fail(400, 'malformed multipart body'));
		}
		const result = await new Promise<{ error?: Reply; fileName?: string; bytes: number }>(
			(resolve) => {
				let fileName: string | undefined;
				let writing: Promise<void> | undefined;
				let tooLarge = false;
				let bytes = 0;
				bb.on('file', (name, stream, info) => {
					if (name !== 'file' || writing) {
						stream.resume();
						return;
					}
					fileName = info.filename || 'upload.csv';
					stream.on('data', (c: Buffer) => (bytes += c.length));
					stream.on('limit', () => (tooLarge = true));
					writing = pipeline(stream, fs.createWriteStream(file));
				});
				bb.on('close', () => {
					void (async () => {
						try {
							await writing;
						} catch {
							return resolve({ error: fail(400, 'the file part could not be read'), bytes });
						}
						if (!writing)
							return resolve({ error: fail(400, 'the multipart field "file" is required'), bytes });
						if (tooLarge)
							return resolve({ error: fail(413, 'the file exceeds the 100M upload limit'), bytes });
						resolve({ fileName, bytes });
					})();
				});
				bb.on('error', () => resolve({ error: fail(400, 'malformed multipart body'), bytes }));
				req.pipe(bb);
			},
		);
		if (result.error) {
			this.discard(file);
			return result.error;
		}
		const { store } = this.ctx();
		const upload: Upload = {
			id: store.nextId('upload'),
			fileName: result.fileName!,
			type,
			status: 'PROCESSING',
			reason: null,
			bytes: result.bytes,
			rows: 0,
			stored: 0,
			createdTime: now(),
		};
		store.uploads.set(upload.id, upload);
		setTimeout(() => void this.process(upload, file).finally(() => this.discard(file)), 20).unref();
		return ok({ id: upload.id, fileName: upload.fileName, type }, 202);
	}

	status(id: string): Reply {
		const e = v.intIdError(id, 'uploadId');
		if (e) return fail(400, e);
		const u = this.ctx().store.uploads.get(Number(id));
		if (!u) return fail(404, `Upload ${id} not found`);
		return ok({ status: u.status, reason: u.reason });
	}

	private discard(file: string): void {
		fs.rmSync(file, { force: true });
		this.temp.delete(file);
	}

	/** Streams the rows of the file (header first) to `onRow`; `onRow` returning false stops early. */
	private async rows(
		file: string,
		onHeader: (h: string[]) => string | undefined,
		onRow: (row: Row, line: number) => Promise<boolean> | boolean,
	): Promise<string | undefined> {
		const parser = fs
			.createReadStream(file)
			.pipe(parse({ bom: true, skip_empty_lines: true, relax_column_count: false, trim: false }));
		let header: string[] | undefined;
		let line = 1;
		try {
			for await (const record of parser as AsyncIterable<string[]>) {
				if (!header) {
					header = record.map((h) => h.trim());
					const e = onHeader(header);
					if (e) return e;
					continue;
				}
				line++;
				const row: Row = {};
				for (let i = 0; i < header.length; i++) row[header[i]] = record[i];
				if (!(await onRow(row, line))) return undefined;
			}
		} catch (error) {
			return `malformed CSV at line ${line + 1}: ${(error as Error).message}`;
		} finally {
			parser.destroy();
		}
		if (!header) return 'the file is empty: a header row is required';
		return undefined;
	}

	private async process(upload: Upload, file: string): Promise<void> {
		const failWith = (reason: string) => {
			upload.status = 'FAILED';
			upload.reason = reason;
		};
		if (!/\.csv$/i.test(upload.fileName))
			return failWith(`file name ${upload.fileName} must end with .csv`);
		const type = upload.type;
		let get: (row: Row, key: string) => string = (row, key) => row[key];
		const headerError = (header: string[]): string | undefined => {
			if (header.some((h) => !h)) return 'bad header: empty column name';
			const dup = header.find((h, i) => header.indexOf(h) !== i);
			if (dup) return `bad header: duplicate column ${dup}`;
			const styled = header.filter((h) => h !== 'person_id');
			if (styled.some((h) => h.includes('_')) && styled.some((h) => /[A-Z]/.test(h)))
				return 'bad header: column names must be all snake_case or all camelCase, not mixed';
			const useCamel = styled.some((h) => /[A-Z]/.test(h));
			const name = (k: string) =>
				k === 'person_id' && type === 'TRANSACTION' ? k : useCamel ? camel(k) : k;
			const missing = REQUIRED[type].filter((k) => !header.includes(name(k)));
			if (missing.length) return `missing required column(s): ${missing.map(name).join(', ')}`;
			get = (row, key) => row[name(key)];
			return undefined;
		};
		// Validation pass: the first error fails the whole file; nothing is stored.
		let validation: string | undefined;
		let rows = 0;
		const scan = await this.rows(file, headerError, (row, line) => {
			rows++;
			validation = this.rowError(type, row, get, line);
			return !validation;
		});
		if (scan ?? validation) return failWith((scan ?? validation)!);
		upload.rows = rows;
		if (this.closed) return;
		// Upload pass: batches of 1000.
		const { store } = this.ctx();
		const idOf = (row: Row) =>
			type === 'PERSON_RELATION' ? get(row, 'person_id') : get(row, 'id');
		let lastSaved: string | null = null;
		let batch: Row[] = [];
		let stopped = false;
		const flush = async (): Promise<boolean> => {
			if (!batch.length) return true;
			const problem = this.batchProblem(type, batch, get);
			if (problem) {
				upload.status = 'PARTIALLY_COMPLETED';
				upload.reason = `${problem.why} (id ${problem.id}). Last saved id: ${lastSaved ?? 'none'}. First id not saved: ${idOf(batch[0])}`;
				return false;
			}
			this.storeBatch(type, batch, get);
			upload.stored += batch.length;
			lastSaved = idOf(batch[batch.length - 1]);
			batch = [];
			await new Promise((r) => setImmediate(r));
			return !this.closed;
		};
		await this.rows(file, headerError, async (row) => {
			batch.push(row);
			if (batch.length < BATCH_SIZE) return true;
			const okBatch = await flush();
			stopped = !okBatch;
			return okBatch;
		});
		if (stopped || !(await flush())) return;
		upload.status = 'COMPLETED';
		upload.reason = null;
		void store;
	}

	private rowError(
		type: string,
		row: Row,
		get: (r: Row, k: string) => string,
		line: number,
	): string | undefined {
		const at = `line ${line}`;
		for (const k of REQUIRED[type])
			if (!get(row, k)?.trim()) return `${at}: required column ${k} is empty`;
		if (type !== 'PERSON_RELATION') {
			const e = v.idError(get(row, 'id'));
			if (e) return `${at}: ${e}`;
		}
		if (type !== 'PERSON') {
			const e = v.idError(get(row, 'person_id'), 'person_id');
			if (e) return `${at}: ${e}`;
		}
		if (type === 'PERSON_RELATION') {
			const e = v.idError(get(row, 'related_person_id'), 'related_person_id');
			if (e) return `${at}: ${e}`;
			return undefined;
		}
		if (type === 'PERSON' && !v.PERSON_TYPES.includes(get(row, 'type')))
			return `${at}: invalid type "${get(row, 'type')}" (expected INDIVIDUAL, LEGAL or UNDEFINED)`;
		const attributes: Json = {};
		for (const [k, raw] of Object.entries(row)) {
			if (raw === undefined || raw === '' || ['id', 'type', 'person_id', 'personId'].includes(k))
				continue;
			const value = cell(raw);
			if (value === INVALID) return `${at}: column ${k} holds invalid JSON`;
			attributes[k] = value;
			if (/timestamp/i.test(k) || /(_time|Time)$/.test(k)) {
				const e = v.timestampError(raw, k);
				if (e) return `${at}: ${e} (value "${raw}")`;
			}
			if (
				(type === 'TRANSACTION' || type === 'TRANSACTION_UPDATE') &&
				/amount|total|rate/i.test(k) &&
				!/^-?\d+(\.\d+)?$/.test(raw.trim())
			) {
				return `${at}: column ${k} must be a decimal number (value "${raw}")`;
			}
		}
		const e = v.attributesError(attributes);
		if (e) return `${at}: ${e}`;
		return undefined;
	}

	private batchProblem(
		type: string,
		batch: Row[],
		get: (r: Row, k: string) => string,
	): { id: string; why: string } | undefined {
		const { store } = this.ctx();
		const seen = new Set<string>();
		for (const row of batch) {
			const id = get(row, 'id');
			if (type === 'PERSON') {
				if (store.persons.has(id) || seen.has(id)) return { id, why: `Duplicate person id ${id}` };
			} else if (type === 'TRANSACTION') {
				if (store.transactions.has(id) || seen.has(id))
					return { id, why: `Duplicate transaction id ${id}` };
				if (!store.personVisible(get(row, 'person_id')))
					return { id, why: `Person ${get(row, 'person_id')} of transaction ${id} does not exist` };
			} else if (type === 'TRANSACTION_UPDATE') {
				const tx = store.transactions.get(id);
				if (!tx || tx.personId !== get(row, 'person_id'))
					return { id, why: `Transaction ${id} of person ${get(row, 'person_id')} does not exist` };
			} else {
				const pid = get(row, 'person_id');
				const rid = get(row, 'related_person_id');
				if (!store.personVisible(pid)) return { id: pid, why: `Person ${pid} does not exist` };
				if (!store.personVisible(rid))
					return { id: pid, why: `Related person ${rid} does not exist` };
			}
			seen.add(id);
		}
		return undefined;
	}

	private storeBatch(type: string, batch: Row[], get: (r: Row, k: string) => string): void {
		const { store, monitoring, risk } = this.ctx();
		const touched = new Set<string>();
		for (const row of batch) {
			const attributes: Json = {};
			for (const [k, raw] of Object.entries(row)) {
				if (raw === undefined || raw === '' || ['id', 'type', 'person_id', 'personId'].includes(k))
					continue;
				attributes[k] = cell(raw);
			}
			if (type === 'PERSON') {
				const category = attributes.category === 'COUNTERPARTY' ? 'COUNTERPARTY' : 'CUSTOMER';
				delete attributes.category;
				const p = store.newPerson(get(row, 'id'), get(row, 'type'), attributes, category);
				store.persons.set(p.id, p);
				monitoring.run('OFFLINE', p, undefined, false);
				touched.add(p.id);
			} else if (type === 'TRANSACTION') {
				const p = store.personVisible(get(row, 'person_id'))!;
				const tx = { id: get(row, 'id'), personId: p.id, attributes, createdTime: now() };
				store.addTransaction(tx);
				monitoring.run('OFFLINE', p, tx, false);
				touched.add(p.id);
			} else if (type === 'TRANSACTION_UPDATE') {
				const tx = store.transactions.get(get(row, 'id'))!;
				for (const [k, value] of Object.entries(attributes))
					if (k === 'status' || !(k in tx.attributes)) tx.attributes[k] = value;
			} else {
				store.relations.push({
					personId: get(row, 'person_id'),
					relatedPersonId: get(row, 'related_person_id'),
					relationType: get(row, 'relation_type'),
				});
			}
		}
		for (const id of touched) {
			const p = store.persons.get(id);
			if (p) risk.rescore(p);
		}
	}
}

const INVALID = Symbol('invalid JSON');

/** A cell: JSON for nested values (arrays, objects), otherwise the string. */
function cell(raw: string): unknown {
	const t = raw.trim();
	if ((t.startsWith('[') && t.endsWith(']')) || (t.startsWith('{') && t.endsWith('}'))) {
		try {
			return JSON.parse(t);
		} catch {
			return INVALID;
		}
	}
	return raw;
}

function drained(req: IncomingMessage, reply: Reply): Reply {
	req.resume();
	return reply;
}
