import { expect, it } from 'vitest';
import type { WebSocketConstructor } from '../src/ports.js';
import { client, optionsFor, simulator, waiter } from './helpers.js';

const until = waiter(60_000);

/**
 * A host slower than the stream (n8n executions) on a socket that cannot be paused (the runtime's
 * WebSocket, n8n's): catch-ups wait for room in the queue, and a drop can come during that wait.
 * An event admitted before the wait and abandoned by the drop was once taken for a duplicate by
 * the next catch-up, and lost.
 */
it('a slow host on a socket that cannot pause, dropped while catch-ups wait for room: nothing lost', async () => {
  const sim = await simulator({ form: 'extended', historySize: 0 });
  const c = client({
    ...optionsFor(sim, { form: 'extended' }),
    WebSocket: globalThis.WebSocket as unknown as WebSocketConstructor,
  });
  const received = new Set<number>();
  const sub = c.events.subscribe(
    'all',
    {
      onEvent: async (event) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        received.add(event.id as number);
      },
    },
    { highWaterMark: 50, backoff: { baseMs: 2, maxMs: 20 } },
  );
  await until(() => sub.state === 'open', 'open');
  const emitted: number[] = [];
  let drops = 0;
  for (let round = 0; round < 5; round++) {
    for (const event of await sim.control.emit(200, { latenessMs: 0 })) emitted.push(event.id);
    sim.control.dropConnections();
    drops++;
    for (const event of await sim.control.emit(1_000, { latenessMs: 0 })) emitted.push(event.id);
    await until(() => sub.stats.reconnects >= drops, `reconnect ${drops}`);
    // The catch-up of a thousand events waits for a queue of 50: drop it mid-way.
    await new Promise((resolve) => setTimeout(resolve, 50));
    sim.control.dropConnections();
    drops++;
    await until(() => sub.stats.reconnects >= drops, `reconnect ${drops}`);
  }
  const [sentinel] = await sim.control.emit(1, { latenessMs: 0 });
  await until(() => received.has(sentinel?.id as number), 'the sentinel');
  await sub.close();
  expect(emitted.filter((id) => !received.has(id))).toEqual([]);
  expect(received.size).toBe(emitted.length + 1);
}, 120_000);
