import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** One operation file: its UI description and its execute function. */
export interface OperationModule {
	description: INodeProperties[];
	execute: (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[][]>;
}

/** One resource folder: the operation selector plus every operation's fields, and the operations. */
export interface ResourceModule {
	description: INodeProperties[];
	operations: Record<string, OperationModule>;
}
