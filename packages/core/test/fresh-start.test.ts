import type { EmitOptions, SimulatedEvent, Simulator } from '@observation-service/simulator';
import { describe, expect, it } from 'vitest';
import type { StoredPosition } from '../src/index.js';
import { memoryStore } from '../src/realtime/__tests__/memory-store.js';
import { recordIdOf } from '../src/realtime/__tests__/recorder.js';
import { client, optionsFor, simulator, waiter } from './helpers.js';

const until = waiter(20_000);

/** Emits one event for each task, one after the other (each task has a socket of its own in the basic form). */
async function sentinelPerTask(
  sim: Simulator,
  taskIds: number[],
  options: EmitOptions = {},
): Promise<SimulatedEvent[]> {
  const sentinels: SimulatedEvent[] = [];
  for (const taskId of taskIds)
    sentinels.push(...(await sim.control.emit(1, { ...options, taskIds: [taskId] })));
  return sentinels;
}

/**
 * A fresh start (no position) must not mistake events published after it for the past. It once
 * did: what came before the start was read after the socket opened, and on a service whose
 * history answers slowly (a remote cloud, n8n's request helper) that read also found events sent
 * meanwhile; those the socket never carried (it dropped at once) were then skipped for good.
 */
describe('a fresh start on a slow service', () => {
  it.each(['extended', 'basic'] as const)(
    '%s: events sent right after the socket opened, live or only into history, are all delivered once',
    async (form) => {
      const sim = await simulator({ form, historySize: 30 });
      // History answers take a while, as across an ocean; the socket is as fast as ever.
      sim.control.delayResponses(150);
      const c = client(
        form === 'extended'
          ? optionsFor(sim, { form: 'extended' })
          : { ...optionsFor(sim, { form: 'basic' }), serviceId: undefined },
      );
      const taskIds = sim.world.tasks.slice(0, 3).map((task) => task.id);
      const sockets = form === 'basic' ? taskIds.length : 1;
      const received: number[] = [];
      const sub = c.events.subscribe(
        taskIds,
        { onEvent: (event) => void received.push(recordIdOf(event)) },
        {
          allowedLatenessMs: 60_000,
          backoff: { baseMs: 2, maxMs: 20 },
        },
      );
      try {
        // The server has the socket: what is sent from now on is after the start.
        await until(() => sim.control.stats().openSockets === sockets, 'the sockets');
        const live = await sim.control.emit(20, { taskIds });
        sim.control.dropConnections();
        const unseen = await sim.control.emit(20, { taskIds });
        await until(() => sub.stats.reconnects >= sockets && sub.state === 'open', 'the reconnect');
        // A sentinel on every task, so on every socket (one per task in the basic form): each
        // socket has delivered what came before its sentinel.
        const sentinels = await sentinelPerTask(sim, taskIds);
        const expected = [...live, ...unseen, ...sentinels].map((event) => event.id);
        await until(() => expected.every((id) => received.includes(id)), 'every event after the start');
        // Nothing from before the start (the seeded history), nothing twice.
        expect([...received].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
      } finally {
        await sub.close();
        await c.close();
      }
    },
    60_000,
  );

  it.each(['extended', 'basic'] as const)(
    '%s: events of its first second published before it are the past, not delivered by a later catch-up',
    async (form) => {
      const sim = await simulator({ form, historySize: 0 });
      const c = client(
        form === 'extended'
          ? optionsFor(sim, { form: 'extended' })
          : { ...optionsFor(sim, { form: 'basic' }), serviceId: undefined },
      );
      const taskIds = sim.world.tasks.slice(0, 2).map((task) => task.id);
      const sockets = form === 'basic' ? taskIds.length : 1;
      // Early in a second, so the events below and the start share it (the wire time's resolution).
      while (Date.now() % 1000 > 300) await new Promise((resolve) => setTimeout(resolve, 5));
      const before = await sim.control.emit(5, { taskIds, latenessMs: 0 });
      const received: number[] = [];
      const sub = c.events.subscribe(
        taskIds,
        { onEvent: (event) => void received.push(recordIdOf(event)) },
        { backoff: { baseMs: 2, maxMs: 20 } },
      );
      try {
        await until(() => sim.control.stats().openSockets === sockets && sub.state === 'open', 'the sockets');
        expect(Math.floor(Date.parse(before[0]?.timestamp ?? '') / 1000)).toBe(
          Math.floor(
            Date.parse(sub.position.streams[Object.keys(sub.position.streams)[0] ?? '']?.from ?? '') / 1000,
          ),
        );
        // A catch-up now reads from the start's second, where those five were published before it.
        sim.control.dropConnections();
        await until(() => sub.stats.reconnects >= sockets && sub.state === 'open', 'the reconnect');
        // A sentinel on every task, so on every socket (one per task in the basic form).
        const sentinels = (await sentinelPerTask(sim, taskIds, { latenessMs: 0 })).map((event) => event.id);
        await until(() => sentinels.every((id) => received.includes(id)), 'the sentinels');
        // Sockets do not keep an order between them: compared sorted.
        expect([...received].sort((a, b) => a - b)).toEqual([...sentinels].sort((a, b) => a - b));
      } finally {
        await sub.close();
        await c.close();
      }
    },
    60_000,
  );

  it('a restart before the first event resumes from the start: what happened while down is delivered', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const c = client(optionsFor(sim, { form: 'extended' }));
    // Kept as JSON, as every host keeps it.
    const store = memoryStore();
    const received: number[] = [];
    const open = () =>
      c.events.subscribe(
        'all',
        { onEvent: (event) => void received.push(event.id as number) },
        { position: store },
      );
    const first = open();
    await until(() => first.state === 'open', 'open');
    await first.close();
    // Nothing was delivered, yet where it began is stored.
    expect((store.value as StoredPosition | undefined)?.streams.extended?.from).toBeDefined();
    const whileDown = await sim.control.emit(3, { latenessMs: 0 });
    const second = open();
    await until(() => second.state === 'open', 'reopened');
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    await until(() => received.includes(sentinel?.id as number), 'the sentinel');
    await second.close();
    expect(received).toEqual([...whileDown.map((event) => event.id), sentinel?.id]);
  });
});

describe('a fresh start whose read of its first second fails', () => {
  it('says why in the message, at info level (nothing lost, nothing to do), and goes on live', async () => {
    const sim = await simulator({ form: 'extended', historySize: 10 });
    const infos: string[] = [];
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info: (message: string) => void infos.push(message),
      warn: (message: string) => void warnings.push(message),
      error() {},
    };
    // One attempt per request: the failing answer is the read's, not retried away.
    sim.control.failNext(1, 500);
    const c = client(optionsFor(sim, { form: 'extended', logger, retry: { attempts: 1 } }));
    const received: number[] = [];
    const sub = c.events.subscribe('all', { onEvent: (event) => void received.push(recordIdOf(event)) });
    await until(() => sim.control.stats().openSockets === 1, 'the socket');
    const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
    await until(() => received.length === 1, 'the sentinel');
    expect(received).toEqual([sentinel?.id]);
    expect(infos.filter((message) => message.startsWith('A fresh start'))).toEqual([
      expect.stringMatching(
        /^A fresh start of the selected tasks could not read the events already published in the second it began in \(.*500.*\): events of that second published before the start may be delivered once more$/,
      ),
    ]);
    expect(warnings).toEqual([]);
    await sub.close();
  });
});
