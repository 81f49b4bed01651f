import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { randomBytes } from 'crypto';

import { requestOptions, runItems } from '../../helpers/items';
import { amlRequest } from '../../transport';
import { invalid } from '../../validation';
import { headerProblem, MAX_FILE_BYTES, unsuccessfulUpload, UPLOAD_TYPES, waitForFinalState } from './shared';

const properties: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		placeholder: 'data',
		hint: 'The name of the input binary field containing the CSV file',
	},
	{
		displayName: 'Upload Type',
		name: 'uploadType',
		type: 'options',
		options: [
			{ name: 'Person', value: 'PERSON', description: 'Required columns: ID and type (INDIVIDUAL, LEGAL, UNDEFINED); other columns are attributes' },
			{ name: 'Person Relation', value: 'PERSON_RELATION', description: 'Columns person_id, related_person_id, relation_type' },
			{ name: 'Transaction', value: 'TRANSACTION', description: 'Required columns: ID, person_id, timestamp, amount, direction; other columns are attributes' },
			{ name: 'Transaction Update', value: 'TRANSACTION_UPDATE', description: 'Required columns: ID and person_id, then new columns or status' },
		],
		default: 'PERSON',
	},
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: true,
		description:
			'Whether to wait until the service has processed the file (COMPLETED, FAILED or PARTIALLY_COMPLETED). FAILED and PARTIALLY_COMPLETED are reported as errors with the reason, never as success.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				placeholder: 'persons.csv',
				description: 'Name sent with the file (must end with .csv). Default: the binary file name.',
			},
			{
				displayName: 'Max Wait (Seconds)',
				name: 'maxWait',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 600,
				description: 'How long to wait for the service to finish processing before reporting the upload as still processing',
			},
			...requestOptions.filter((o) => o.name !== 'timeout'),
			{ ...requestOptions.find((o) => o.name === 'timeout')!, default: 300000 },
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['dataUpload'], operation: ['upload'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][]> {
	return await runItems(this, items, {
		prepare: async (i) => {
			const property = String(this.getNodeParameter('binaryPropertyName', i, 'data')).trim();
			const binary = items[i].binary?.[property];
			if (!binary) {
				const present = Object.keys(items[i].binary ?? {});
				throw invalid(this, i, 'Input Binary Field', property, `names no binary data of the item (${present.length ? `it has: ${present.join(', ')}` : 'the item has no binary data'})`);
			}
			const type = this.getNodeParameter('uploadType', i) as string;
			if (!(UPLOAD_TYPES as readonly string[]).includes(type)) throw invalid(this, i, 'Upload Type', type, `must be one of ${UPLOAD_TYPES.join(', ')}`);
			const fileName = String(this.getNodeParameter('options.fileName', i, '') || binary.fileName || `${type.toLowerCase()}.csv`);
			if (!/\.csv$/i.test(fileName)) throw invalid(this, i, 'File Name', fileName, 'must end with .csv');
			const file = await this.helpers.getBinaryDataBuffer(i, property);
			if (file.length === 0) throw invalid(this, i, 'Input Binary Field', property, 'holds an empty file');
			if (file.length > MAX_FILE_BYTES) throw invalid(this, i, 'Input Binary Field', `${file.length} bytes`, 'exceeds the service limit of 100 MB');
			const problem = headerProblem(file, type);
			if (problem) throw invalid(this, i, 'CSV header', fileName, problem);
			return { property, type, fileName };
		},
		send: async ({ property, type, fileName }, i) => {
			// One Buffer, not a stream or FormData: n8n can then re-send it after a token refresh.
			const file = await this.helpers.getBinaryDataBuffer(i, property);
			const boundary = `----n8n-aml-${randomBytes(12).toString('hex')}`;
			const head = Buffer.from(
				`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName.replace(/"/g, '')}"\r\nContent-Type: text/csv\r\n\r\n`,
			);
			const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
			const body = Buffer.allocUnsafe(head.length + file.length + tail.length);
			head.copy(body, 0);
			file.copy(body, head.length);
			tail.copy(body, head.length + file.length);
			const accepted = (
				await amlRequest.call(
					this,
					{ method: 'POST', path: '/v1/data-upload', qs: { type }, body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, retry: 'none' },
					i,
				)
			).body as IDataObject;
			const uploadId = Number(accepted.id);
			const base: IDataObject = { uploadId, fileName: accepted.fileName ?? fileName, type: accepted.type ?? type };
			if (!this.getNodeParameter('waitForCompletion', i, true)) return { ...base, status: 'ACCEPTED', reason: null, success: false, accepted: true };
			const final = { ...base, ...(await waitForFinalState(this, uploadId, this.getNodeParameter('options.maxWait', i, 600) as number, i)) };
			if (final.success) return final;
			if (this.continueOnFail()) return final;
			throw unsuccessfulUpload(this, final, i);
		},
	});
}
