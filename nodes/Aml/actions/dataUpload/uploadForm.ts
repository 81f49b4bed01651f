import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { safeFileName } from './csv';
import { rangesOf, type ByteRange } from './csvRows';

/** Read size when copying a stored file (n8n's default is 64 KiB: 1,600 reads for 100 MB). */
const STREAM_CHUNK_BYTES = 256 * 1024;
/** Base64 text decoded at a time for a file n8n keeps in memory (a multiple of 4 characters: 192 KiB of bytes). */
const BASE64_CHUNK_CHARS = 4 * 64 * 1024;

/** The bytes of a binary, chunk by chunk: read from n8n's binary store, or decoded from the item's base64 text. */
export async function* binaryChunks(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
): AsyncGenerator<Uint8Array> {
	if (binary.id) {
		for await (const chunk of await ctx.helpers.getBinaryStream(binary.id, STREAM_CHUNK_BYTES))
			yield chunk as Buffer;
		return;
	}
	const text = binary.data ?? '';
	for (let at = 0; at < text.length; at += BASE64_CHUNK_CHARS)
		yield Buffer.from(text.slice(at, at + BASE64_CHUNK_CHARS), 'base64');
}

/**
 * Exactly `bytes` bytes or an error. The request announced that length: a file that turns out longer or shorter than
 * n8n recorded stops the request before its end, and the service stores nothing of an incomplete request.
 */
async function* exactly(
	chunks: AsyncIterable<Uint8Array>,
	bytes: number,
): AsyncGenerator<Uint8Array> {
	let read = 0;
	for await (const chunk of chunks) {
		read += chunk.length;
		if (read > bytes) break;
		yield chunk;
	}
	if (read !== bytes) {
		throw new Error(
			`The file in the input binary field holds ${read > bytes ? 'more' : `${read}`} bytes, not the ${bytes} n8n recorded for it; the upload was stopped before its end, so the service stored nothing of it. Run the node again`,
		);
	}
}

/**
 * The CSV file of an upload as a standard `File` whose bytes are read from n8n's binary data only while the request
 * sends them (`stream()`), a chunk at a time: a 100 MB file never sits in memory, and reading overlaps sending. Each
 * `stream()` reads the file again, so n8n can send the request a second time after renewing a refused OAuth2 token.
 * The HTTP client reads a File of a FormData through `size`, `type`, `name` and `stream()`.
 * Made on first use, not when the node loads: a Node.js without `File` or `ReadableStream.from` (before 20.6) then
 * fails only the upload, with a message that says so, and every other operation works.
 */
function makeBinaryDataFileClass() {
	if (typeof File !== 'function' || typeof ReadableStream?.from !== 'function') {
		throw new Error(
			`Data Upload needs Node.js 20.6 or later (the Node.js running this n8n lacks File or ReadableStream.from): run n8n on a Node.js version it supports`,
		);
	}
	return class BinaryDataFile extends File {
		readonly #chunks: () => AsyncIterable<Uint8Array>;

		constructor(chunks: () => AsyncIterable<Uint8Array>, bytes: number, name: string) {
			super([], name, { type: 'text/csv' });
			this.#chunks = chunks;
			// `size` is an accessor of Blob; the file's real length shadows it (the parts given to File are none).
			Object.defineProperty(this, 'size', { value: bytes, enumerable: false });
		}

		override stream(): ReadableStream<Uint8Array> {
			return ReadableStream.from(exactly(this.#chunks(), this.size));
		}

		override async arrayBuffer(): Promise<ArrayBuffer> {
			const whole = new Uint8Array(this.size);
			let at = 0;
			for await (const chunk of exactly(this.#chunks(), this.size)) {
				whole.set(chunk, at);
				at += chunk.length;
			}
			return whole.buffer;
		}

		override async text(): Promise<string> {
			return new TextDecoder().decode(await this.arrayBuffer());
		}
	};
}

let binaryDataFileClass: ReturnType<typeof makeBinaryDataFileClass> | undefined;

/** The class of the files `uploadForm` makes (for tests and type checks). */
export function BinaryDataFile(): ReturnType<typeof makeBinaryDataFileClass> {
	return (binaryDataFileClass ??= makeBinaryDataFileClass());
}

/**
 * The multipart form of an upload: one part, field `file`, the CSV streamed from n8n's binary data; with `ranges`,
 * only those byte ranges of it (`bytes` long in all: a resumed upload's header row and rows not stored).
 */
export function uploadForm(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
	bytes: number,
	fileName: string,
	ranges?: ByteRange[],
): FormData {
	const form = new FormData();
	const chunks = ranges
		? () => rangesOf(binaryChunks(ctx, binary), ranges)
		: () => binaryChunks(ctx, binary);
	// No file name argument: FormData would copy the File into a new one (losing how its bytes are read).
	form.append('file', new (BinaryDataFile())(chunks, bytes, safeFileName(fileName)));
	return form;
}
