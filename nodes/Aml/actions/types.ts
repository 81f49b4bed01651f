import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ItemValidator } from '../validation';
import type { ToolOutput } from '../helpers/toolOutput';

/**
 * One operation file: its UI description and its execute function, which gets the router's validation of the
 * operation's parameters to pass on to `runItems`.
 */
export interface OperationModule {
	description: INodeProperties[];
	execute: (
		this: IExecuteFunctions,
		items: INodeExecutionData[],
		validate: ItemValidator,
	) => Promise<INodeExecutionData[][]>;
	/** The operation only reads: n8n's Retry On Fail may run it again. Any other operation refuses that setting. */
	readOnly?: boolean;
	/** Its items carry `decision` (the checks): an item that failed says `block` wherever it goes. */
	decides?: boolean;
	/** Its records have more than 10 fields: as a tool it offers Output (Simplified, Raw, Selected Fields). */
	toolOutput?: ToolOutput;
}

/** One resource folder: the operation selector plus every operation's fields, and the operations. */
export interface ResourceModule {
	description: INodeProperties[];
	operations: Record<string, OperationModule>;
}
