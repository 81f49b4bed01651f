import type { INodeProperties, INodePropertyMode } from 'n8n-workflow';

/**
 * The ID parameters are resource locators (`locatorProperty`): Person ID (From List through Person Search, By ID),
 * Custom List ID (By ID, By URL) and Alert ID (By ID, By URL). The service lists no custom lists, so a Custom List ID
 * has no From List. A plain string where a locator is expected (a workflow written by hand, through n8n's API or by
 * an AI builder) is read as the ID itself (`itemLocatorValue`, helpers/itemParameter.ts).
 */

/** A web-app link: scheme and host, then any path before the segment that names the resource. */
const LINK = 'https?://[^/\\s?#]+(?:/[^\\s?#]*?)?';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

interface UrlForm {
	/** Path segments that may precede the ID, e.g. `custom-lists`. */
	segments: string[];
	/** Pattern of a well-formed ID (the editor's check; the node checks the extracted ID with its own rules). */
	id: string;
	example: string;
	/** What the link points to, e.g. "a custom list". */
	what: string;
}

const URL_FORMS: Record<string, UrlForm> = {
	customListId: {
		segments: ['custom-lists', 'lists'],
		id: UUID,
		example: 'https://app.example.com/custom-lists/5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10',
		what: 'a custom list',
	},
	alertId: {
		segments: ['alerts'],
		id: '\\d+',
		example: 'https://app.example.com/alerts/1042',
		what: 'an alert',
	},
};

/** "/custom-lists/<id> or /lists/<id>" */
function pathForms(form: UrlForm): string {
	return form.segments.map((segment) => `/${segment}/<id>`).join(' or ');
}

/** The rule a By URL value breaks when no ID can be read from it (the node's error names item and field). */
export function urlRule(parameter: string): string {
	const form = URL_FORMS[parameter];
	if (!form) return 'must be a link that names the ID';
	return `must be an http(s) link whose path has ${pathForms(form)}, e.g. ${form.example}`;
}

/** A locator's modes (kept as literals under `modes`, where n8n's lint reads them as modes). */
export interface Locator {
	modes: INodePropertyMode[];
}

/** By URL, apart from its name: a link pasted from the service's web app; the ID is read from its path. */
function urlMode(parameter: string): Omit<INodePropertyMode, 'displayName' | 'name' | 'type'> {
	const form = URL_FORMS[parameter];
	const segment = `/(?:${form.segments.join('|')})/`;
	return {
		placeholder: `e.g. ${form.example}`,
		hint: `A link to ${form.what} from the AML web app: any http(s) address whose path has ${pathForms(form)}`,
		validation: [
			{
				type: 'regex',
				properties: {
					// n8n wraps it in ^…$ itself.
					regex: `${LINK}${segment}${form.id}(?:[/?#]\\S*)?`,
					errorMessage: `Not a link to ${form.what}: expected e.g. ${form.example}`,
				},
			},
		],
		extractValue: { type: 'regex', regex: `^${LINK}${segment}([^/?#\\s]+)` },
	};
}

export const personIdLocator: Locator = {
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a person...',
			typeOptions: { searchListMethod: 'searchPersons', searchable: true },
		},
		{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'e.g. cust-10023' },
	],
};

export const customListIdLocator: Locator = {
	modes: [
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 5f0c6a52-8a43-4b0e-9a59-6f1d2c3b4a10',
		},
		{ displayName: 'By URL', name: 'url', type: 'string', ...urlMode('customListId') },
	],
};

export const alertIdLocator: Locator = {
	modes: [
		{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'e.g. 1042' },
		{ displayName: 'By URL', name: 'url', type: 'string', ...urlMode('alertId') },
	],
};

/** An ID parameter as a resource locator with the given modes; each mode has its own placeholder. */
export function locatorProperty(property: INodeProperties, locator: Locator): INodeProperties {
	const { modes } = locator;
	const rest: INodeProperties = { ...property };
	delete rest.placeholder;
	return {
		...rest,
		type: 'resourceLocator',
		default: { mode: modes[0].name, value: '' },
		modes,
	};
}

/** Person ID as plain text: the ID of a new person (Person → Create), and the base of the Person ID locator. */
export const personIdProperty: INodeProperties = {
	displayName: 'Person ID',
	name: 'personId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. cust-10023',
	description:
		'External, case-sensitive ID of the person. Allowed characters: a-z, A-Z, 0-9, - _ : .',
};
