/**
 * Produces live events: records each in history, then pushes it to every matching socket, then
 * stamps the push time (history shows an event `historyLagMs` after it).
 *
 * Built for throughput (≥ 50,000 events/s over one socket): every event is serialized and framed
 * at most once per form whatever the number of subscribers, frames go out in chunks (one socket
 * write per chunk instead of two per event) and no timer or promise is created per event. Between chunks the pump yields to the event loop and waits for
 * sockets with a large write backlog to drain (a little while, so a stalled client cannot stop it).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { buildEvent } from '../events/event-factory.js';
import { basicJson, extendedJson } from '../events/payload-json.js';
import type { MediaOverride } from '../media/media-schedule.js';
import { MAX_DELAY_MS } from '../options.js';
import { hash2, Rng } from '../random.js';
import { FrameBatch, FrameRuns } from '../realtime/frame-batch.js';
import type { RealtimeClient, RealtimeHub } from '../realtime/realtime-hub.js';
import type { ServerContext } from '../server-context.js';
import type { SimulatedEvent, Task } from '../types.js';
import { isActiveStatus } from '../world/world-state.js';
import { PublicationDelay } from './publication-delay.js';

const CHUNK = 512;
const BACKLOG_BYTES = 4 * 1024 * 1024;
const DRAIN_WAIT_MS = 1000;
export interface EmitOptions {
  /** Round-robin over these tasks (whatever their status); default random active tasks. */
  taskIds?: readonly number[];
  /** Each event's timestamp lies this many ms before now; 0 = on time. Default: the realism options. */
  latenessMs?: number;
  /** The snapshot exists this many ms after publication; 'never' = it never appears. Default: `mediaDelay`. */
  snapshotDelayMs?: number | 'never';
  /** The clip exists this many ms after publication; 'never' = it never appears. Default: `mediaDelay`. */
  clipDelayMs?: number | 'never';
  /**
   * Record id of an event to repeat: every emitted event has its task, second and content (kind,
   * objects, plate, VLM answer, note) under a new id, so in the basic form, with `media: 'none'`
   * or 'shared', it cannot be told from it. Not with `taskIds` or `latenessMs`.
   */
  like?: number;
}

/** What an emitted twin repeats: its original's task, second and content. */
interface Twin {
  task: Task;
  second: number;
  contentId: number;
}

/** When events emitted together happened: evenly over `fromMs`..`toMs` (epoch ms). */
export interface OccurredSpan {
  fromMs: number;
  toMs: number;
}

export class EventPump {
  readonly #ctx: ServerContext;
  readonly #hub: RealtimeHub;
  readonly #rng: Rng;
  readonly #delay: PublicationDelay;
  #closed = false;

  constructor(ctx: ServerContext, hub: RealtimeHub) {
    this.#ctx = ctx;
    this.#hub = hub;
    this.#rng = new Rng(hash2(ctx.options.seed, 0x11fe));
    const { seed, cameraLatencyMs, latePublication } = ctx.options;
    this.#delay = new PublicationDelay(seed, cameraLatencyMs, latePublication);
  }

  get delay(): PublicationDelay {
    return this.#delay;
  }

  /**
   * Records and pushes `count` events now. With `taskIds` the events go round-robin over those
   * tasks (whatever their status); without, to random active tasks (operating or video; all tasks
   * if none is). Each event's timestamp lies `latenessMs` before now when given (0 = on time, for
   * sentinels), else its camera's latency or, for the late share, its late delay before now.
   * `snapshotDelayMs` / `clipDelayMs` fix when their media exist instead of `mediaDelay`.
   * Resolves once the events are handed to the sockets and their backlog is flushed.
   */
  /**
   * `occurred`, for the rate generator: the events happened evenly over this span (their
   * timestamps then lie their camera latency or late delay before their share of it), so a
   * generator that ticks late under load leaves no gap in occurrence time, as a real camera fleet
   * would not.
   */
  async emit(
    count: number,
    options: EmitOptions = {},
    collect = true,
    occurred?: OccurredSpan,
  ): Promise<SimulatedEvent[]> {
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError(`emit: count must be an integer >= 0, got ${count}`);
    const { taskIds, latenessMs } = options;
    if (
      latenessMs !== undefined &&
      (typeof latenessMs !== 'number' || !Number.isInteger(latenessMs) || latenessMs < 0)
    ) {
      throw new RangeError(
        `emit: latenessMs must be an integer >= 0 (ms between the timestamp and now), got ${String(latenessMs)}`,
      );
    }
    const media = mediaOverride(options);
    const twin = this.#twinOf(options);
    const out: SimulatedEvent[] = [];
    if (count === 0) return out;
    const choose = twin ? () => twin.task : this.#chooser(taskIds);
    const patient = new Set<RealtimeClient>(this.#hub.receivers());
    let done = 0;
    while (done < count && !this.#closed) {
      const n = Math.min(CHUNK, count - done);
      this.#emitChunk(n, choose, collect ? out : undefined, latenessMs, media, occurred, done, count, twin);
      done += n;
      if (done < count) {
        await yieldToLoop();
        await this.#drain(patient);
      }
    }
    await this.#drain(patient, 0);
    return out;
  }

  close(): void {
    this.#closed = true;
  }

  #twinOf(options: EmitOptions): Twin | undefined {
    const { like } = options;
    if (like === undefined) return undefined;
    const { log, world } = this.#ctx;
    if (typeof like !== 'number' || !log.has(like)) {
      throw new RangeError(
        `emit: like must be the record id of an existing event, from 1 to ${log.newestId}, got ${JSON.stringify(like)}`,
      );
    }
    if (options.taskIds !== undefined || options.latenessMs !== undefined) {
      throw new RangeError(
        "emit: like repeats its event's task and second, so taskIds and latenessMs cannot be given with it",
      );
    }
    const { taskId, second } = log.placeOf(like);
    const task = world.knownTask(taskId);
    if (!task) throw new RangeError(`emit: like ${like} belongs to task ${taskId}, which no longer exists`);
    return { task, second, contentId: like };
  }

  #chooser(taskIds: readonly number[] | undefined): () => Task {
    const { world } = this.#ctx;
    if (taskIds && taskIds.length > 0) {
      const tasks = taskIds.map((id) => {
        const task = world.task(id);
        if (!task) {
          throw new RangeError(
            `emit: taskIds contains ${id}, which is no task (known: ${world
              .tasks()
              .map((t) => t.id)
              .join(', ')})`,
          );
        }
        return task;
      });
      let next = 0;
      return () => tasks[next++ % tasks.length] as Task;
    }
    const all = world.tasks();
    const active = all.filter((task) => isActiveStatus(task.status));
    const pool = active.length > 0 ? active : all;
    if (pool.length === 0) throw new RangeError('emit: the world has no tasks');
    return () => this.#rng.pick(pool);
  }

  #emitChunk(
    count: number,
    choose: () => Task,
    out: SimulatedEvent[] | undefined,
    latenessMs: number | undefined,
    mediaOverride: MediaOverride | undefined,
    occurred: OccurredSpan | undefined,
    first: number,
    total: number,
    twin?: Twin,
  ): void {
    const { log, counters, eventContext, media } = this.#ctx;
    // Off (no mediaDelay, no override): the media schedule is not touched per event.
    const scheduleMedia = media.drawing || mediaOverride !== undefined;
    const numeric = this.#ctx.options.numericTimestamps;
    const delay = this.#delay;
    const receivers = this.#hub.receivers();
    const batch = new FrameBatch();
    const runs = receivers.map(() => new FrameRuns());
    try {
      for (let n = 0; n < count; n++) {
        const task = choose();
        // A twin takes its original's second, however long ago that was: no lateness is drawn.
        let lateness = 0;
        if (twin) lateness = 0;
        else if (latenessMs !== undefined) {
          lateness = latenessMs;
          if (lateness > 0) counters.lateEventsPublished++;
        } else if (delay.active) {
          const late = delay.lateMs(log.size + 1);
          if (late === undefined) lateness = delay.cameraLatencyMs(task.camera_id);
          else {
            lateness = late;
            counters.lateEventsPublished++;
          }
        }
        const newest = log.newestLiveSecond;
        const now = Date.now();
        const happened = occurred
          ? occurred.fromMs + ((occurred.toMs - occurred.fromMs) * (first + n + 1)) / total
          : now;
        const occurredMs = twin ? twin.second * 1000 : happened - lateness;
        const { id, second } = log.append(task.id, occurredMs, twin?.contentId);
        if (scheduleMedia) media.published(id, now, occurredMs, mediaOverride);
        counters.eventsEmitted++;
        if (second < newest) counters.eventsOutOfOrder++;
        let event: SimulatedEvent | undefined;
        let basic: [number, number, number] | undefined;
        let extended: [number, number, number] | undefined;
        for (let r = 0; r < receivers.length; r++) {
          const client = receivers[r] as RealtimeClient;
          if (client.taskIds && !client.taskIds.has(task.id)) continue;
          event ??= buildEvent(eventContext, id, task, second, twin?.contentId);
          let frame: [number, number, number];
          if (client.form === 'basic') {
            basic ??= batch.add(basicJson(event, numeric));
            frame = basic;
          } else {
            extended ??= batch.add(extendedJson(event, numeric));
            frame = extended;
          }
          (runs[r] as FrameRuns).push(frame);
        }
        if (out) out.push(event ?? buildEvent(eventContext, id, task, second, twin?.contentId));
      }
    } finally {
      // Frames go straight to the socket ws owns: without permessage-deflate ws writes
      // synchronously too, so its pings and close frames keep their order relative to ours.
      for (let r = 0; r < receivers.length; r++) {
        const client = receivers[r] as RealtimeClient;
        const mine = runs[r] as FrameRuns;
        if (mine.empty || client.ws.readyState !== 1) continue;
        const slices = mine.slices(batch);
        if (slices.length === 1) client.socket.write(slices[0] as Buffer);
        else {
          client.socket.cork();
          for (const slice of slices) client.socket.write(slice);
          client.socket.uncork();
        }
      }
      // Handed to the sockets now: history shows these events `historyLagMs` from here.
      log.pushed(Date.now());
    }
  }

  /** Waits (bounded) for sockets with a backlog; a socket that does not drain in time is not waited for again. */
  async #drain(patient: Set<RealtimeClient>, threshold = BACKLOG_BYTES): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const client of patient) {
      if (client.socket.destroyed || client.socket.writableLength <= threshold) continue;
      waits.push(
        new Promise<void>((resolve) => {
          const finish = (drained: boolean) => {
            clearTimeout(timer);
            client.socket.off('drain', onDrain);
            client.socket.off('close', onDrain);
            if (!drained) patient.delete(client);
            resolve();
          };
          const onDrain = () => finish(true);
          const timer = setTimeout(() => finish(false), DRAIN_WAIT_MS);
          client.socket.on('drain', onDrain);
          client.socket.on('close', onDrain);
        }),
      );
    }
    await Promise.all(waits);
  }
}

/** The emit's media override in ms after publication (Infinity = never), undefined when none is given. */
function mediaOverride(options: EmitOptions): MediaOverride | undefined {
  const { snapshotDelayMs, clipDelayMs } = options;
  if (snapshotDelayMs === undefined && clipDelayMs === undefined) return undefined;
  return {
    snapshotDelayMs: mediaDelayOf('snapshotDelayMs', snapshotDelayMs),
    clipDelayMs: mediaDelayOf('clipDelayMs', clipDelayMs),
  };
}

function mediaDelayOf(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (value === 'never') return Number.POSITIVE_INFINITY;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_DELAY_MS) {
    throw new RangeError(
      `emit: ${name} must be an integer from 0 to ${MAX_DELAY_MS} (ms after publication) or 'never', got ${JSON.stringify(value)}`,
    );
  }
  return value;
}
