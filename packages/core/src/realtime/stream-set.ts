import type { DeploymentForm } from '../context/form-state.js';
import type { ConnectionEvent } from './connection.js';
import type { RealtimeContext } from './context.js';
import { openStream, type StreamSpec } from './open-stream.js';
import type { LoadedPosition } from './position-saver.js';
import { basicRealtimeUrl, extendedRealtimeUrl } from './realtime-path.js';
import type { ResolvedSelection } from './selection.js';
import type { Stream } from './stream.js';
import type { ResolvedOptions } from './subscribe-options.js';
import { reportUnknownTasks } from './task-check.js';
import { followTasks, type TaskListUpdate } from './task-follower.js';

/** What the stream set needs of the subscription that composes it. */
export interface StreamSetHost {
  readonly context: RealtimeContext;
  readonly options: ResolvedOptions;
  observe(stream: Stream): (event: ConnectionEvent) => void;
  /** A stream opened: where it begins is a position too (`restored`: it began where it stopped). */
  opened(stream: Stream, restored: boolean): void;
  /** The streams now match the selection (a task listing was applied). */
  listed(): void;
  report(error: Error): void;
  fail(error: Error): void;
}

/**
 * The sockets a selection needs: one for the extended form, one per task for the basic form, and
 * for the basic form's `'all'` one per task the service lists now and then. Streams start from the
 * position loaded for them; stopping them waits for every reconnect loop to end.
 */
export class StreamSet {
  /** Streams by label, in the order they opened. */
  readonly streams = new Map<string, Stream>();
  /** What the store held when the subscription started (see PositionSaver.load). */
  loaded: LoadedPosition = {
    streams: new Map(),
    fallback: undefined,
    firstStart: false,
    unfinished: new Map(),
  };
  /** Until the first listing of the basic form's `'all'`, the subscription is only connecting. */
  listed = false;
  private readonly stopping = new Set<Promise<void>>();
  private follower: Promise<void> | undefined;
  private readonly startedMs: number;

  constructor(
    private readonly host: StreamSetHost,
    private readonly tasks: ResolvedSelection,
    public form: DeploymentForm,
    private readonly signal: AbortSignal,
  ) {
    this.startedMs = host.context.clock.now();
  }

  /** Basic form with `'all'`: the sockets follow the service's task list. */
  get followsTaskList(): boolean {
    return this.form === 'basic' && this.tasks === 'all';
  }

  /** Opens the sockets of the selection in the current form. */
  open(): void {
    const { context, options } = this.host;
    const { tasks } = this;
    if (this.form === 'extended') {
      const serviceId = context.serviceId as string;
      this.add({
        label: 'extended',
        url: (token) => extendedRealtimeUrl(context.wsBaseUrl, serviceId, tasks, token),
        historyTasks: tasks === 'all' ? 'all' : [...tasks],
      });
      this.listed = true;
      if (tasks !== 'all')
        void reportUnknownTasks(context, tasks, this.signal, (error) => this.host.report(error));
    } else if (tasks !== 'all') {
      for (const id of tasks) this.addTask(id);
      this.listed = true;
    } else {
      this.follower = followTasks({
        context,
        options,
        signal: this.signal,
        onUpdate: (update) => this.applyTaskList(update),
        onError: (error) => this.host.report(error),
        onFatal: (error) => this.host.fail(error),
      });
    }
  }

  /** The deployment turned out to be of the older form: start over with one socket per task. */
  reopenAsBasic(label: string): void {
    this.form = 'basic';
    this.remove(label);
    this.listed = false;
    this.open();
  }

  remove(label: string): void {
    const stream = this.streams.get(label);
    if (!stream) return;
    this.streams.delete(label);
    stream.catchUp?.abort();
    stream.connection.stop();
    const stopped = stream.running.finally(() => this.stopping.delete(stopped));
    this.stopping.add(stopped);
  }

  /** Stops every stream; resolves when no socket, timer or task listing of them is left. */
  async stop(): Promise<void> {
    for (const label of [...this.streams.keys()]) this.remove(label);
    await Promise.all([...this.stopping, this.follower]);
  }

  private applyTaskList(update: TaskListUpdate): void {
    if (this.signal.aborted) return;
    const wanted = new Set(update.ids.map((id) => taskLabel(id)));
    for (const label of [...this.streams.keys()]) {
      if (wanted.has(label)) continue;
      this.remove(label);
      this.loaded.streams.delete(label);
    }
    for (const id of update.ids) {
      if (this.streams.has(taskLabel(id))) continue;
      // A task that appeared since the last listing may have produced events already.
      const from = (update.previousListingMs ?? this.host.context.clock.now()) - this.host.options.overlapMs;
      this.addTask(id, update.first ? undefined : from);
    }
    this.listed = true;
    this.host.listed();
  }

  private addTask(id: number, newTaskFromMs?: number): void {
    const { wsBaseUrl } = this.host.context;
    const url = (token: string) => basicRealtimeUrl(wsBaseUrl, id, token);
    this.add({
      label: taskLabel(id),
      url,
      historyTasks: [id],
      ...(newTaskFromMs === undefined ? {} : { newTaskFromMs }),
    });
  }

  private add(spec: StreamSpec): void {
    const { context, options } = this.host;
    const opening = {
      context,
      options,
      startedMs: this.startedMs,
      loaded: this.loaded,
      observe: (s: Stream) => this.host.observe(s),
    };
    const { stream, restored } = openStream(opening, spec);
    this.streams.set(spec.label, stream);
    this.host.opened(stream, restored);
  }
}

function taskLabel(id: number): string {
  return `task ${id}`;
}
