import type { ObservationEvent } from '../model/observation-event.js';
import type { EventBatch, EventMeta, SubscriptionHandlers } from '../realtime/types.js';
import type { EventMedia } from './event-media.js';

type Prepare = (event: ObservationEvent, meta: EventMeta) => Promise<EventMedia>;

/**
 * Hands each event (or batch) over with its media: preparation starts when core hands the event
 * over, so with `maxInFlight` N the downloads of N events overlap; the host still receives the
 * events of a task in their order (a batch after the batch before it), each once, never held
 * beyond its media wait. The acknowledgement stays the host's promise.
 */
export function withMedia(handlers: SubscriptionHandlers, prepare: Prepare): SubscriptionHandlers {
  const { onEvent, onBatch } = handlers;
  if (onBatch) {
    let last: Promise<void> | undefined;
    return {
      ...handlers,
      onBatch: (batch) => {
        const media = Promise.all(
          batch.events.map((event, i) => prepare(event, batch.metas[i] as EventMeta)),
        );
        const { turn, handed } = nextTurn();
        const previous = last;
        last = turn;
        return handOver(media, previous, handed, (prepared) => {
          const metas = batch.metas.map((meta, i) => ({ ...meta, media: prepared[i] as EventMedia }));
          return onBatch.call(handlers, { ...batch, metas } satisfies EventBatch);
        }).finally(() => {
          if (last === turn) last = undefined;
        });
      },
    };
  }
  if (!onEvent) return handlers;
  const lastOfTask = new Map<number, Promise<void>>();
  return {
    ...handlers,
    onEvent: (event, meta) => {
      const media = prepare(event, meta);
      const { turn, handed } = nextTurn();
      const previous = lastOfTask.get(event.taskId);
      lastOfTask.set(event.taskId, turn);
      return handOver(media, previous, handed, (prepared) =>
        onEvent.call(handlers, event, { ...meta, media: prepared }),
      ).finally(() => {
        if (lastOfTask.get(event.taskId) === turn) lastOfTask.delete(event.taskId);
      });
    },
  };
}

/** A turn that resolves once its event was handed over (not once the host finished with it). */
function nextTurn(): { turn: Promise<void>; handed: () => void } {
  let handed!: () => void;
  const turn = new Promise<void>((resolve) => {
    handed = resolve;
  });
  return { turn, handed };
}

async function handOver<T>(
  media: Promise<T>,
  previous: Promise<void> | undefined,
  handed: () => void,
  hand: (prepared: T) => void | Promise<void>,
): Promise<void> {
  let result: void | Promise<void>;
  try {
    const prepared = await media;
    if (previous) await previous;
    result = hand(prepared);
  } finally {
    handed();
  }
  await result;
}
