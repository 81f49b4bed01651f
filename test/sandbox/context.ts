import type { Store } from './store';
import type { Webhooks } from './webhooks';

/** What the route modules share: the store, the webhook emitter and the engines. */
export interface Ctx {
	store: Store;
	hooks: Webhooks;
	risk: import('./risk').Risk;
	monitoring: import('./monitoring').Monitoring;
	screening: import('./screening').Screening;
	decisions: import('./decisions').Decisions;
}
