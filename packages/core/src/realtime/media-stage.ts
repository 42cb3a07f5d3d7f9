import type { ResolvedMediaOptions } from '../media/event-media.js';
import { prepareMedia } from '../media/prepare-media.js';
import type { RealtimeContext } from './context.js';
import type { Item } from './stream.js';

/**
 * The `media` option as a stage of the delivery queue: each event's images are prepared before it
 * is handed over (`meta.media`), while the queue keeps the order and counts what is in flight.
 * Never rejects: an image that does not come is a flag on the event and one report.
 */
export function mediaStage(
  context: RealtimeContext,
  settings: ResolvedMediaOptions,
  report: (error: Error) => void,
  signal: AbortSignal,
): (item: Item) => Promise<void> {
  const preparation = {
    settings,
    download: context.downloadImage,
    now: () => context.clock.now(),
    report,
    signal,
  };
  return async (item) => {
    item.meta.media = await prepareMedia(preparation, item.event, item.meta.source);
  };
}
