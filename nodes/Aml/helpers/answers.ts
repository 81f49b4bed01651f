import type { IDataObject } from 'n8n-workflow';

/** The service's answer when it is a non-empty object, else what was sent (some answers are empty or not shown). */
export function answerOrSent(answer: unknown, sent: IDataObject): IDataObject {
	if (answer !== null && typeof answer === 'object' && !Array.isArray(answer) && Object.keys(answer).length > 0) {
		return answer as IDataObject;
	}
	return sent;
}
