/**
 * Seam with n8n: whether a parameter is shown, for the values one item gives the parameters it depends on.
 *
 * Relies on: `NodeHelpers.displayParameter(nodeValues, parameter, node, nodeTypeDescription, nodeValuesRoot)` of
 * n8n-workflow, the function n8n's editor and its parameter checks use (exported, but not part of the documented
 * node API). Used by the node's validation of choices and numbers set by expressions (validation/parameters.ts),
 * which must check exactly the parameters n8n shows for that item, no more and no fewer.
 * Replaces: the package's own evaluation of `displayOptions`, which treated version and `_cnd` conditions as
 * "not shown".
 * Measured on: every tested n8n (test/n8nVersions.json; n8n-workflow 1.120.31 to 2.41.0): same signature and the
 * same answers for every parameter of both nodes in every resource/operation the panel can show
 * (test/contract/displayOptions.test.ts). If n8n changes the signature, the contract test fails; the node would
 * otherwise validate too few or too many parameters.
 */
import type { INode, INodeParameters, INodeProperties, NodeParameterValue } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

/** The parameter names a property's `displayOptions` depend on (`/name` read at the root; version conditions are read from the node). */
export function displayDependencies(property: INodeProperties): string[] {
	const { show, hide } = property.displayOptions ?? {};
	const keys = [...Object.keys(show ?? {}), ...Object.keys(hide ?? {})];
	return [
		...new Set(keys.filter((key) => !key.startsWith('@')).map((key) => key.replace(/^\//, ''))),
	];
}

/** Whether n8n shows `property` when its dependencies have the values `valueOf` gives. */
export function isShown(
	property: INodeProperties,
	node: Pick<INode, 'typeVersion'>,
	valueOf: (name: string) => unknown,
): boolean {
	if (!property.displayOptions) return true;
	const values: INodeParameters = {};
	for (const name of displayDependencies(property))
		values[name] = valueOf(name) as NodeParameterValue;
	return NodeHelpers.displayParameter(values, property, node, null, values);
}
