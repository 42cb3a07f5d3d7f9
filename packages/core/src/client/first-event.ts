import type { ClientCore } from '../context/client-core.js';
import { asError } from '../errors/as-error.js';
import type { EventFilterInput } from '../filter/event-filter.js';
import { resolveMediaOptions, type SubscribeMediaOptions } from '../media/event-media.js';
import type { ObservationEvent } from '../model/observation-event.js';
import type { RealtimeContext } from '../realtime/context.js';
import type { EventMeta, Subscription, SubscriptionHandlers, TaskSelection } from '../realtime/index.js';
import { mediaStage } from '../realtime/media-stage.js';
import { defaultOptions } from '../realtime/subscribe-options.js';
import type { SubscribeOptions } from '../realtime/types.js';
import { type LatestEventOptions, latestEntry } from '../resources/latest-event.js';

export interface FirstEventOptions {
  /** Only an event that passes (see `parseEventFilter`). */
  filter?: EventFilterInput;
  /** The images to hand the event over with (`meta.media`), prepared as a subscription's are. */
  media?: SubscribeMediaOptions;
  /** Look no further back in history than this (default 7 days). */
  withinMs?: number;
  /** Stops waiting: the promise resolves undefined. */
  signal?: AbortSignal;
  /** Problems that do not end the wait (history unreadable, a malformed frame, a missing image). */
  onError?(error: Error): void;
}

/** The event a host shows when a user tests a trigger. */
export interface FirstEvent {
  event: ObservationEvent;
  meta: EventMeta;
  /** True when it came from history (the newest stored one), false when it arrived live. */
  stored: boolean;
}

type Subscribe = (
  selection: TaskSelection,
  handlers: SubscriptionHandlers,
  options?: SubscribeOptions,
) => Subscription;

/**
 * The newest stored event that passes the filter, at once; when history has none, the first live
 * one. Whichever comes first wins, and its images are prepared as a subscription would prepare
 * them. Resolves undefined when `signal` aborts first; rejects when the stream fails (a refused
 * token, an unknown service id) or an option is not valid.
 */
export async function firstEvent(
  core: ClientCore,
  context: RealtimeContext,
  subscribe: Subscribe,
  selection: TaskSelection,
  options: FirstEventOptions = {},
): Promise<FirstEvent | undefined> {
  const { filter, media, withinMs, signal, onError } = options;
  const settings = resolveMediaOptions(media);
  const stop = new AbortController();
  const report = (error: Error) => {
    try {
      onError?.(error);
    } catch (handlerError) {
      core.logger.warn('onError handler threw', { error: asError(handlerError).message });
    }
  };
  // A stored event's images, prepared by the same stage as a subscription's (its live events').
  // Its lateness is a subscription's default: the stored event may have been published that late.
  const prepare =
    settings && mediaStage(context, settings, report, stop.signal, defaultOptions.allowedLatenessMs);
  let subscription: Subscription | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<FirstEvent | undefined>((resolve, reject) => {
      if (signal?.aborted) return resolve(undefined);
      onAbort = () => resolve(undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      subscription = subscribe(
        selection,
        {
          onEvent: (event, meta) => resolve({ event, meta, stored: false }),
          onStateChange: (state, info) => {
            if (state === 'failed') reject(info.error ?? new Error('The event stream failed'));
          },
          onError: report,
        },
        { ...(filter === undefined ? {} : { filter }), ...(media === undefined ? {} : { media }) },
      );
      const latest: LatestEventOptions = { signal: stop.signal };
      if (filter !== undefined) latest.filter = filter;
      if (withinMs !== undefined) latest.withinMs = withinMs;
      latestEntry(core, selection, latest).then(
        async (entry) => {
          if (!entry) return;
          const found: FirstEvent = {
            event: entry.event,
            meta: { raw: entry.raw, source: 'backfill', attempt: 1 },
            stored: true,
          };
          if (prepare) await prepare(found);
          resolve(found);
          // No history to show (yet): the live stream still answers.
        },
        (error: unknown) => {
          if (!stop.signal.aborted) report(asError(error));
        },
      );
    });
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    stop.abort();
    await subscription?.close();
  }
}
