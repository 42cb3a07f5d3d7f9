import { describe, expect, it } from 'vitest';
import { client, optionsFor, simulator } from './helpers.js';

describe('events.latest: the newest matching event, for a host testing a trigger', () => {
  it('is the newest of the selected tasks that passes the filter, whatever the order of history', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0, historyOrder: 'asc' });
    const c = client(optionsFor(sim, { form: 'extended' }));
    const [first, second] = sim.world.tasks.map((task) => task.id) as [number, number];
    const older = await sim.control.emit(5, { taskIds: [first], latenessMs: 3_000 });
    const newer = await sim.control.emit(3, { taskIds: [first], latenessMs: 1_000 });
    // Published last, but happened earliest: it is not the newest.
    await sim.control.emit(1, { taskIds: [first], latenessMs: 30_000 });
    const otherTask = await sim.control.emit(2, { taskIds: [second], latenessMs: 0 });
    const latest = await c.events.latest([first]);
    const newestTime = Math.max(...newer.map((event) => Date.parse(event.timestamp)));
    expect(latest?.taskId).toBe(first);
    expect(latest?.occurredAt.getTime()).toBe(newestTime);
    expect(older.map((event) => event.id)).not.toContain(latest?.id);
    expect((await c.events.latest('all'))?.id).toBe(otherTask.at(-1)?.id);
    // A filter no event passes: nothing, not some other event.
    expect(await c.events.latest('all', { filter: { eventNames: 'no_such_event' }, withinMs: 60_000 })).toBe(
      undefined,
    );
  });

  it('on a busy service it reads only the last seconds; on a quiet one it looks further back', async () => {
    const sim = await simulator({
      form: 'extended',
      historySize: 20_000,
      historySpanMs: 100_000,
      historyTasks: 'active',
    });
    const c = client(optionsFor(sim, { form: 'extended' }));
    const before = sim.control.stats().requests;
    const latest = await c.events.latest('all');
    expect(latest).toBeDefined();
    // 200 events a second: the first window (10 s, about 20 pages of 100) holds the newest.
    expect(sim.control.stats().requests - before).toBeLessThan(40);

    const quiet = await simulator({ form: 'extended', historySize: 3, historySpanMs: 2 * 86_400_000 });
    const q = client(optionsFor(quiet, { form: 'extended' }));
    const found = await q.events.latest('all');
    expect(found?.id).toBe(3);
  });
});
