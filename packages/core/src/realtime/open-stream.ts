import { asError } from '../errors/as-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { Admission } from './admission.js';
import { readSecondKeys } from './catch-up.js';
import { Connection, type ConnectionEvent } from './connection.js';
import type { RealtimeContext } from './context.js';
import type { EventKey } from './event-key.js';
import type { LoadedPosition } from './position-saver.js';
import { keepConnected } from './reconnect.js';
import type { Stream } from './stream.js';
import { streamTitle } from './stream-title.js';
import type { ResolvedOptions } from './subscribe-options.js';

/** The read was cut short because the client or the subscription is closing: nothing to say. */
function closing(error: unknown): boolean {
  if (error instanceof Error && error.name === 'AbortError') return true;
  return (
    ObservationError.isInstance(error) &&
    (error.code === 'CLIENT_CLOSED' || error.code === 'SUBSCRIPTION_CLOSED')
  );
}

/** Which socket to open: its label, its address and the tasks its history covers. */
export interface StreamSpec {
  label: string;
  url: (token: string) => string;
  historyTasks: number[] | 'all';
  /** A task that appeared since the last listing: its first catch-up starts here. */
  newTaskFromMs?: number;
}

export interface OpenStreamContext {
  context: RealtimeContext;
  options: ResolvedOptions;
  startedMs: number;
  /** What the store held; the stream's own entry is taken out of it. */
  loaded: LoadedPosition;
  observe(stream: Stream): (event: ConnectionEvent) => void;
}

/**
 * Opens the stream where it stopped (its stored position), or else where the options say:
 * `lookBackMs` before the start, a new task's first listing, or (a fresh start) live. `restored`
 * tells whether a stored position was used.
 *
 * A fresh start covers what happens from the second it started in: events that happened before
 * it are delivered when they arrive live, and a catch-up after a drop never reads before that
 * second. The wire time has second resolution, so the events of that second the service had
 * already published are read first (one small read, see learnStartSecond), not the allowed
 * lateness of history.
 */
export function openStream(open: OpenStreamContext, spec: StreamSpec): { stream: Stream; restored: boolean } {
  const { options, context, startedMs, loaded } = open;
  const restored = loaded.streams.get(spec.label) ?? loaded.fallback;
  loaded.streams.delete(spec.label);
  const lookBack = loaded.firstStart ? 0 : options.lookBackMs;
  const startFromMs =
    restored?.fromMs ?? spec.newTaskFromMs ?? (lookBack > 0 ? startedMs - lookBack : undefined);
  const floorMs = startFromMs ?? Math.floor(startedMs / 1000) * 1000;
  const admission = new Admission(
    options.allowedLatenessMs + options.overlapMs + 1_000,
    options.dedupeCapacity,
    floorMs,
  );
  if (restored) admission.restore(restored);
  const connection = new Connection(context, options, spec.label, spec.url);
  const running =
    startFromMs !== undefined
      ? Promise.resolve()
      : learnStartSecond(context, connection.signal, spec, admission, floorMs);
  const stream: Stream = {
    label: spec.label,
    historyTasks: spec.historyTasks,
    connection,
    running: running.then(() => keepConnected(connection, context, options)),
    admission,
    startFromMs,
    phase: 'waiting',
    started: false,
    pending: [],
    catchUp: undefined,
    readingBack: false,
    capacityReported: false,
  };
  connection.subscribe(open.observe(stream));
  return { stream, restored: restored !== undefined };
}

/**
 * A fresh start's one read of history, before its socket opens: the events of the second it
 * started in that the service had published already are the past, known without being
 * delivered, so a later catch-up (which reads from that whole second) does not deliver them.
 * Reading before the socket exists is what makes it safe: nothing published after the socket
 * opened can be mistaken for the past. If it fails, the start goes on; a catch-up may then
 * deliver events of that second published before the start (a repeat of at most one second,
 * never a loss), and the failure is logged at info level with its reason (not when the client or
 * the subscription closing cut it short).
 */
async function learnStartSecond(
  context: RealtimeContext,
  signal: AbortSignal,
  spec: StreamSpec,
  admission: Admission,
  secondMs: number,
): Promise<void> {
  const keys: EventKey[] = [];
  try {
    for await (const key of readSecondKeys(context, spec.historyTasks, secondMs, signal)) keys.push(key);
  } catch (error) {
    if (signal.aborted || closing(error)) return;
    // Said in the message itself (hosts such as n8n print no metadata), at info level: nothing is
    // lost and there is nothing to do; the start goes on live.
    context.logger.info(
      `A fresh start of ${streamTitle(spec.label)} could not read the events already published in the second it began in (${asError(error).message}): events of that second published before the start may be delivered once more`,
      { stream: spec.label },
    );
  }
  // What was read before a failure is known all the same.
  admission.ignoreAll(keys, secondMs);
}
