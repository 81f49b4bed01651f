import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

/** The service's answer when it is a non-empty object, else what was sent (some answers are empty or not shown). */
export function answerOrSent(answer: unknown, sent: IDataObject): IDataObject {
	if (
		answer !== null &&
		typeof answer === 'object' &&
		!Array.isArray(answer) &&
		Object.keys(answer).length > 0
	) {
		return answer as IDataObject;
	}
	return sent;
}

/**
 * `{ afterLostAnswer: true }` when the answer is a repeat's after an attempt whose answer was lost (see
 * AmlResponse.afterLostAnswer: a 422 then means "stored, by the lost attempt or before it"), else no field. Every
 * operation that outputs such an answer carries it, so that a result is never read as what this run alone did.
 */
export function lostAnswerFields(response: { afterLostAnswer?: boolean }): IDataObject {
	return response.afterLostAnswer ? { afterLostAnswer: true } : {};
}

/**
 * The error of an item whose answer could not be read (no list where one was due): nothing is concluded from it,
 * least of all "no match". `reason` says what came instead, `retry` what the user can do.
 */
export function unreadableAnswer(
	ctx: IExecuteFunctions,
	itemIndex: number,
	answer: { message: string; reason: string; retry: string },
): NodeApiError {
	return new NodeApiError(ctx.getNode(), { message: answer.reason } as JsonObject, {
		message: answer.message,
		description: `${answer.reason}. Nothing is concluded from it; ${answer.retry}.`,
		itemIndex,
	});
}
