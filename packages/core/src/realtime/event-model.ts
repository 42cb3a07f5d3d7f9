/**
 * The seam to core's event model and normalization: the subscription orders and dedupes by a few
 * fields of `ObservationEvent` and hands the whole normalized event to the handler.
 */
export type { ObservationEvent as RealtimeEvent } from '../model/observation-event.js';
export { normalizeEvent } from '../normalize/normalize-event.js';
