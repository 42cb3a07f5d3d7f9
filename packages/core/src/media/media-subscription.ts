import type { ClientCore } from '../context/client-core.js';
import type { SubscribeOptions, SubscriptionHandlers } from '../realtime/types.js';
import { download, type MediaDownload } from './download.js';
import { resolveMediaOptions } from './event-media.js';
import { withMedia } from './media-delivery.js';
import { prepareMedia } from './prepare-media.js';

/** Events in flight with the `media` option unless `maxInFlight` says otherwise: snapshots written 5 s late at 10 events/s keep their rate. */
export const defaultMediaInFlight = 64;

/**
 * The handlers and options of a subscription with the `media` option: core's handlers prepare
 * each event's images before the host's run, the subscription itself never sees `media`.
 * Without the option, the host's handlers and options as given.
 */
export function mediaSubscription(
  core: ClientCore,
  handlers: SubscriptionHandlers,
  options: SubscribeOptions | undefined,
): { media: SubscriptionHandlers; rest: SubscribeOptions | undefined; stopMedia: () => void } {
  const settings = resolveMediaOptions(options?.media);
  if (!settings || options === undefined) return { media: handlers, rest: options, stopMedia: () => {} };
  const { media: _media, ...rest } = options;
  if (rest.maxInFlight === undefined) rest.maxInFlight = defaultMediaInFlight;
  const stop = new AbortController();
  const report = (error: Error) => {
    try {
      handlers.onError?.(error);
    } catch (handlerError) {
      core.logger.warn('onError handler threw', { error: String(handlerError) });
    }
  };
  const prep = {
    settings,
    download: (event: object, opts: object) =>
      download(core, event, 'image', opts) as Promise<MediaDownload<Buffer>>,
    now: () => core.clock.now(),
    report,
    signal: stop.signal,
  };
  return {
    media: withMedia(handlers, (event, meta) => prepareMedia(prep, event, meta)),
    rest,
    stopMedia: () => stop.abort(),
  };
}
