import { describe, expect, it } from 'vitest';
import {
  HttpError,
  ObservationError,
  type StoredTaskWatch,
  type TaskWatchEvent,
  type TaskWatchStore,
  ValidationError,
} from '../src/index.js';
import { client, optionsFor, simulator } from './helpers.js';

/** Collects what a watch reports. */
function recorder() {
  const events: TaskWatchEvent[] = [];
  const errors: Error[] = [];
  return {
    events,
    errors,
    handlers: {
      onChange: (event: TaskWatchEvent) => void events.push(event),
      onError: (e: Error) => void errors.push(e),
    },
  };
}

const slow = 60_000; // tests drive polls with poll(), so the timer never fires during them

/** A host's store: what it is given goes through JSON, as into a file or a context store. */
function jsonStore(initial?: unknown) {
  const saved: StoredTaskWatch[] = [];
  let value: unknown = initial;
  const store: TaskWatchStore = {
    load: async () => value,
    save(state) {
      value = JSON.parse(JSON.stringify(state));
      saved.push(value as StoredTaskWatch);
    },
  };
  return { store, saved, value: () => value };
}

describe('task health watch against the simulator', () => {
  it("reports 'operating, normal' → 'operating, disconnected' once, with parsed category and state", async () => {
    const sim = await simulator({ historySize: 0 });
    const c = client(optionsFor(sim));
    const target = sim.world.tasks.find((t) => t.status === 'operating, normal');
    if (!target) throw new Error('expected a task operating normally');
    const r = recorder();
    const watch = c.tasks.watch({ intervalMs: slow }, r.handlers);
    expect(watch.state).toBe('starting');
    await watch.poll(); // joins the first poll, already in flight
    expect(watch.state).toBe('running');
    expect(r.events).toEqual([]); // the first poll is the baseline

    sim.control.setTaskStatus(target.id, 'operating, disconnected');
    await watch.poll();
    await watch.poll();
    expect(r.events).toHaveLength(1);
    const [event] = r.events;
    expect(event).toMatchObject({
      type: 'changed',
      taskId: target.id,
      taskName: target.name,
      previous: { raw: 'operating, normal', category: 'operating', state: 'normal' },
      current: { raw: 'operating, disconnected', category: 'operating', state: 'disconnected' },
      task: { id: target.id, status: 'operating, disconnected' },
    });
    expect(event?.at).toBeInstanceOf(Date);
    expect(watch.stats).toMatchObject({ polls: 3, changed: 1, failures: 0, tasks: sim.world.tasks.length });
    expect(r.errors).toEqual([]);
    await watch.close();
  });

  it('polls on its own every intervalMs', async () => {
    const sim = await simulator({ historySize: 0 });
    const c = client(optionsFor(sim));
    const target = sim.world.tasks[0];
    if (!target) throw new Error('expected a task');
    let resolve: (event: TaskWatchEvent) => void = () => undefined;
    const reported = new Promise<TaskWatchEvent>((r) => {
      resolve = r;
    });
    const watch = c.tasks.watch({ intervalMs: 1_000 }, { onChange: (event) => resolve(event) });
    await watch.poll();
    sim.control.setTaskStatus(target.id, 'non-operating, terminated');
    const event = await reported; // no poll() here: the timer must bring it
    expect(event).toMatchObject({
      type: 'changed',
      taskId: target.id,
      current: { category: 'non-operating', state: 'terminated' },
    });
    expect(watch.stats.polls).toBeGreaterThanOrEqual(2);
    await watch.close();
  });

  it("handles the bare 'video' status and unknown statuses as category 'unknown'", async () => {
    const sim = await simulator({ historySize: 0 });
    const c = client(optionsFor(sim));
    const video = sim.world.tasks.find((t) => t.status === 'video');
    const normal = sim.world.tasks.find((t) => t.status === 'operating, normal');
    if (!video || !normal) throw new Error('expected a video task and a normal one');
    const r = recorder();
    const watch = c.tasks.watch(
      { intervalMs: slow, taskIds: [video.id, normal.id], emitInitial: true },
      r.handlers,
    );
    await watch.poll();
    expect(r.events.map((e) => [e.type, e.taskId, e.current?.category, e.current?.state])).toEqual(
      [
        ['initial', video.id, 'unknown', 'video'],
        ['initial', normal.id, 'operating', 'normal'],
      ].sort((a, b) => Number(a[1]) - Number(b[1])),
    );
    r.events.length = 0;

    sim.control.setTaskStatus(video.id, 'rebooting');
    sim.control.setTaskStatus(normal.id, 'Operating,  NORMAL'); // spelling only: no transition
    await watch.poll();
    expect(r.events.map((e) => [e.type, e.taskId, e.previous, e.current])).toEqual([
      [
        'changed',
        video.id,
        { raw: 'video', category: 'unknown', state: 'video' },
        { raw: 'rebooting', category: 'unknown', state: 'rebooting' },
      ],
    ]);
    sim.control.setTaskStatus(video.id, 'video');
    await watch.poll();
    expect(r.events.at(-1)).toMatchObject({
      previous: { state: 'rebooting' },
      current: { raw: 'video', category: 'unknown' },
    });
    await watch.close();
  });

  it('a 5xx during a poll is reported, the watch goes on and the next poll works', async () => {
    const sim = await simulator({ historySize: 0 });
    const c = client(optionsFor(sim, { retry: { attempts: 1 } }));
    const target = sim.world.tasks.find((t) => t.status === 'operating, normal');
    if (!target) throw new Error('expected a task');
    const r = recorder();
    const watch = c.tasks.watch({ intervalMs: slow }, r.handlers);
    await watch.poll();

    sim.control.setTaskStatus(target.id, 'operating, slow');
    sim.control.failNext(1, 503);
    await watch.poll();
    expect(r.errors).toHaveLength(1);
    expect(HttpError.isInstance(r.errors[0]) && r.errors[0].status).toBe(503);
    expect(watch.state).toBe('failing');
    expect(watch.stats).toMatchObject({
      failures: 1,
      consecutiveFailures: 1,
      lastError: r.errors[0]?.message,
    });
    expect(r.events).toEqual([]); // a failed poll changes nothing it remembers

    await watch.poll();
    expect(watch.state).toBe('running');
    expect(watch.stats.consecutiveFailures).toBe(0);
    expect(r.events.map((e) => [e.type, e.taskId, e.current?.state])).toEqual([
      ['changed', target.id, 'slow'],
    ]);
    await watch.close();
  });

  it('reports tasks added and removed after the baseline; taskIds limits what is watched', async () => {
    const sim = await simulator({ historySize: 0 });
    const c = client(optionsFor(sim));
    const [first, second] = sim.world.tasks;
    if (!first || !second) throw new Error('expected tasks');
    const all = recorder();
    const one = recorder();
    const watchAll = c.tasks.watch({ intervalMs: slow }, all.handlers);
    const watchOne = c.tasks.watch({ intervalMs: slow, taskIds: String(first.id) }, one.handlers);
    await Promise.all([watchAll.poll(), watchOne.poll()]);
    expect(watchOne.stats.tasks).toBe(1);

    const added = sim.control.addTask({ name: 'Night Gate', status: 'operating, normal' });
    sim.control.removeTask(second.id);
    sim.control.setTaskStatus(first.id, 'non-operating, paused');
    await Promise.all([watchAll.poll(), watchOne.poll()]);
    expect(all.events.map((e) => [e.type, e.taskId, e.taskName])).toEqual(
      [
        ['changed', first.id, first.name],
        ['removed', second.id, second.name],
        ['added', added.id, 'Night Gate'],
      ].sort((a, b) => Number(a[1]) - Number(b[1])),
    );
    expect(one.events.map((e) => [e.type, e.taskId])).toEqual([['changed', first.id]]);
    expect(watchAll.stats).toMatchObject({ changed: 1, added: 1, removed: 1 });
    await Promise.all([watchAll.close(), watchOne.close()]);
  });

  it('a throwing handler is reported and later events still arrive; async handlers are awaited in order', async () => {
    const sim = await simulator({ historySize: 0 });
    const c = client(optionsFor(sim));
    const ids = sim.world.tasks.slice(0, 3).map((t) => t.id);
    const seen: number[] = [];
    const errors: Error[] = [];
    const watch = c.tasks.watch(
      { intervalMs: slow, taskIds: ids, emitInitial: true },
      {
        async onChange(event) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          seen.push(event.taskId);
          if (event.taskId === ids[0]) throw new Error('handler failed');
        },
        onError: (error) => void errors.push(error),
      },
    );
    await watch.poll();
    expect(seen).toEqual([...ids].sort((a, b) => a - b));
    expect(errors.map((e) => e.message)).toEqual(['handler failed']);
    expect(watch.state).toBe('running');
    await watch.close();
  });

  it('close() is idempotent, aborts a poll in flight and delivers nothing after; poll() after close does nothing', async () => {
    const sim = await simulator({ historySize: 0 });
    const c = client(optionsFor(sim));
    const r = recorder();
    const watch = c.tasks.watch({ intervalMs: slow, emitInitial: true }, r.handlers);
    await watch.poll();
    const initial = r.events.length;
    expect(initial).toBe(sim.world.tasks.length);

    sim.control.delayResponses(2_000);
    sim.control.setTaskStatus(sim.world.tasks[0]?.id ?? 1, 'operating, slow');
    const inFlight = watch.poll();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await Promise.all([watch.close(), watch.close()]);
    await inFlight;
    expect(Date.now() - started).toBeLessThan(1_500); // did not wait for the delayed answer
    expect(watch.state).toBe('closed');
    expect(r.events).toHaveLength(initial);
    expect(r.errors).toEqual([]); // being closed is not a failure

    sim.control.delayResponses(0);
    const requests = sim.control.stats().requests;
    await watch.poll();
    expect(sim.control.stats().requests).toBe(requests);
  });

  it('an AbortSignal and client.close() close the watch', async () => {
    const sim = await simulator({ historySize: 0 });
    const c = client(optionsFor(sim));
    const controller = new AbortController();
    const byAbort = c.tasks.watch({ intervalMs: slow, signal: controller.signal }, { onChange() {} });
    const byClient = c.tasks.watch({ intervalMs: slow }, { onChange() {} });
    await Promise.all([byAbort.poll(), byClient.poll()]);
    controller.abort();
    expect(byAbort.state).toBe('closed');
    const aborted = new AbortController();
    aborted.abort();
    const never = c.tasks.watch({ signal: aborted.signal }, { onChange() {} });
    expect(never.state).toBe('closed');
    await c.close();
    expect(byClient.state).toBe('closed');
    expect(() => c.tasks.watch({}, { onChange() {} })).toThrow(/closed/);
  });

  it('refuses bad options at once', () => {
    const c = client({ url: 'http://127.0.0.1:9', auth: { token: 't' } });
    expect(() => c.tasks.watch({ intervalMs: 10 }, { onChange() {} })).toThrow(ValidationError);
  });

  describe('with a store: the statuses of the last run', () => {
    it('reports a change made while the watch was stopped, once, and stores the new status', async () => {
      const sim = await simulator({ historySize: 0 });
      const c = client(optionsFor(sim));
      const target = sim.world.tasks.find((t) => t.status === 'operating, normal');
      if (!target) throw new Error('expected a task operating normally');
      const kept = jsonStore();
      const first = c.tasks.watch({ intervalMs: slow, store: kept.store }, recorder().handlers);
      await first.poll();
      await first.close();
      expect(kept.saved).toHaveLength(1); // the baseline
      expect(kept.saved[0]?.tasks.find((t) => t.id === target.id)?.status).toBe('operating, normal');
      expect(JSON.stringify(kept.saved[0])).not.toContain('rtsp');

      // While no watch runs.
      sim.control.setTaskStatus(target.id, 'operating, disconnected');
      const r = recorder();
      const second = c.tasks.watch({ intervalMs: slow, store: kept.store }, r.handlers);
      await second.poll();
      expect(r.events.map((e) => [e.type, e.taskId, e.previous?.raw, e.current?.raw])).toEqual([
        ['changed', target.id, 'operating, normal', 'operating, disconnected'],
      ]);
      expect(kept.saved).toHaveLength(2);
      expect(kept.saved[1]?.tasks.find((t) => t.id === target.id)?.status).toBe('operating, disconnected');

      // The next poll finds nothing new and writes nothing (the state did not change).
      await second.poll();
      expect(r.events).toHaveLength(1);
      expect(kept.saved).toHaveLength(2);
      expect(second.stats).toMatchObject({ polls: 2, changed: 1 });
      expect(r.errors).toEqual([]);
      await second.close();
    });

    it('reports tasks added and removed while stopped; a removed one as stored, without camera_rtsp', async () => {
      const sim = await simulator({ historySize: 0 });
      const c = client(optionsFor(sim));
      const gone = sim.world.tasks[1];
      if (!gone) throw new Error('expected tasks');
      const kept = jsonStore();
      const first = c.tasks.watch({ intervalMs: slow, store: kept.store }, recorder().handlers);
      await first.poll();
      await first.close();

      sim.control.removeTask(gone.id);
      const added = sim.control.addTask({ name: 'Night Gate', status: 'operating, normal' });
      const r = recorder();
      const second = c.tasks.watch({ intervalMs: slow, store: kept.store }, r.handlers);
      await second.poll();
      expect(r.events.map((e) => [e.type, e.taskId, e.taskName])).toEqual(
        [
          ['removed', gone.id, gone.name],
          ['added', added.id, 'Night Gate'],
        ].sort((a, b) => Number(a[1]) - Number(b[1])),
      );
      const removed = r.events.find((e) => e.type === 'removed');
      expect(removed?.task).toMatchObject({
        id: gone.id,
        name: gone.name,
        status: gone.status,
        cameraRtsp: '',
      });
      await second.close();
    });

    it('with emitInitial, reports every task once at start: changed ones as changes, the others as initial', async () => {
      const sim = await simulator({ historySize: 0 });
      const c = client(optionsFor(sim));
      const [changed, same] = sim.world.tasks;
      if (!changed || !same) throw new Error('expected tasks');
      const ids = [changed.id, same.id];
      const kept = jsonStore();
      const first = c.tasks.watch({ intervalMs: slow, taskIds: ids, store: kept.store }, recorder().handlers);
      await first.poll();
      await first.close();

      sim.control.setTaskStatus(changed.id, 'non-operating, paused');
      const r = recorder();
      const second = c.tasks.watch(
        { intervalMs: slow, taskIds: ids, emitInitial: true, store: kept.store },
        r.handlers,
      );
      await second.poll();
      expect(r.events.map((e) => [e.type, e.taskId, e.current?.raw])).toEqual(
        [
          ['changed', changed.id, 'non-operating, paused'],
          ['initial', same.id, same.status],
        ].sort((a, b) => Number(a[1]) - Number(b[1])),
      );
      await second.close();
    });

    it('after a change of selection, compares the tasks still watched; a newly watched task is no "added"', async () => {
      const sim = await simulator({ historySize: 0 });
      const c = client(optionsFor(sim));
      const [kept, dropped, added] = sim.world.tasks;
      if (!kept || !dropped || !added) throw new Error('expected tasks');
      const store = jsonStore();
      const first = c.tasks.watch(
        { intervalMs: slow, taskIds: [kept.id, dropped.id], store: store.store },
        recorder().handlers,
      );
      await first.poll();
      await first.close();

      sim.control.setTaskStatus(kept.id, 'operating, slow');
      sim.control.setTaskStatus(dropped.id, 'operating, slow');
      const r = recorder();
      const second = c.tasks.watch(
        { intervalMs: slow, taskIds: [kept.id, added.id], emitInitial: true, store: store.store },
        r.handlers,
      );
      await second.poll();
      expect(r.events.map((e) => [e.type, e.taskId])).toEqual(
        [
          ['changed', kept.id],
          ['initial', added.id],
        ].sort((a, b) => Number(a[1]) - Number(b[1])),
      );
      expect(r.errors).toEqual([]);
      expect(store.saved.at(-1)?.selection).toEqual([kept.id, added.id].sort((a, b) => a - b));
      await second.close();
    });

    it("sets another service's state aside with a note at info level (a changed server, as a new watch), and reports an unreadable one once; both start from a fresh baseline", async () => {
      const sim = await simulator({ historySize: 0 });
      const other = await simulator({ historySize: 0 });
      const target = sim.world.tasks[0];
      if (!target) throw new Error('expected a task');
      const store = jsonStore();
      const elsewhere = client(optionsFor(other)).tasks.watch(
        { intervalMs: slow, store: store.store },
        recorder().handlers,
      );
      await elsewhere.poll();
      await elsewhere.close();

      const notes: string[] = [];
      const warnings: string[] = [];
      const c = client(
        optionsFor(sim, {
          logger: {
            info: (message: string) => void notes.push(message),
            warn: (message: string) => void warnings.push(message),
          },
        }),
      );
      sim.control.setTaskStatus(target.id, 'operating, slow');
      const r = recorder();
      const watch = c.tasks.watch({ intervalMs: slow, store: store.store }, r.handlers);
      await watch.poll();
      // The other service's statuses were not compared with: no made-up change, no error.
      expect(r.events).toEqual([]);
      expect(r.errors).toEqual([]);
      // Said once at info level: the user changed the server, nothing is wrong.
      expect(notes.filter((message) => /belongs to another service/.test(message))).toHaveLength(1);
      expect(warnings).toEqual([]);
      // The fresh baseline is this service's: a change after it is reported.
      sim.control.setTaskStatus(target.id, 'operating, normal');
      await watch.poll();
      expect(r.events.map((event) => [event.type, event.taskId])).toEqual([['changed', target.id]]);
      await watch.close();

      // A store that cannot be read is reported the same way.
      const unreadable = recorder();
      const failing = c.tasks.watch(
        {
          intervalMs: slow,
          store: {
            load: () => Promise.reject(new Error('disk gone')),
            save: () => undefined,
          },
        },
        unreadable.handlers,
      );
      await failing.poll();
      expect(unreadable.errors.map((e) => e.message)).toEqual([
        'Reading the stored task watch state failed, starting from a fresh baseline: disk gone',
      ]);
      expect(failing.state).toBe('running');
      await failing.close();
    });

    it('a store that refuses to save is reported once; the watch and its reports go on', async () => {
      const sim = await simulator({ historySize: 0 });
      const c = client(optionsFor(sim));
      const target = sim.world.tasks[0];
      if (!target) throw new Error('expected a task');
      const r = recorder();
      let attempts = 0;
      const watch = c.tasks.watch(
        {
          intervalMs: slow,
          store: {
            load: () => undefined,
            save() {
              attempts++;
              throw new Error('read-only file system');
            },
          },
        },
        r.handlers,
      );
      await watch.poll();
      sim.control.setTaskStatus(target.id, 'operating, slow');
      await watch.poll();
      await watch.poll(); // unchanged, but the refused state is offered again
      expect(attempts).toBe(3);
      expect(r.events.map((e) => [e.type, e.taskId])).toEqual([['changed', target.id]]);
      expect(r.errors).toHaveLength(1);
      expect(ObservationError.isInstance(r.errors[0]) && r.errors[0].code).toBe(
        'TASK_WATCH_STATE_SAVE_FAILED',
      );
      expect(r.errors[0]?.message).toContain('read-only file system');
      await watch.close();
    });
  });
});
