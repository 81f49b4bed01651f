/** Transaction → Gate: the operation lives in its own folder (gate/: its pipeline, rules, record and requests). */
export { description } from './gate/properties';
export { execute } from './gate/gate';

/** Its items carry `decision`. */
export const decides = true;
