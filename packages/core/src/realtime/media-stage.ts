import type { ResolvedMediaOptions } from '../media/event-media.js';
import { prepareMedia } from '../media/prepare-media.js';
import type { ObservationEvent } from '../model/observation-event.js';
import type { RealtimeContext } from './context.js';
import type { EventMeta } from './types.js';

/**
 * The `media` option as a stage of the delivery queue: each event's images are prepared before it
 * is handed over (`meta.media`), while the queue keeps the order and counts what is in flight.
 * Never rejects: an image that does not come is a flag on the event and one report. A host's test
 * event (`events.first`) is prepared the same way.
 */
export function mediaStage(
  context: RealtimeContext,
  settings: ResolvedMediaOptions,
  report: (error: Error) => void,
  signal: AbortSignal,
  latenessMs: number,
): (item: { event: ObservationEvent; meta: EventMeta }) => Promise<void> {
  const preparation = {
    settings,
    download: context.downloadImage,
    now: () => context.clock.now(),
    latenessMs,
    report,
    signal,
  };
  return async (item) => {
    item.meta.media = await prepareMedia(preparation, item.event, item.meta.source);
  };
}
