/**
 * The simulator in a process of its own, so a client under test never shares an event loop with
 * the server. Started by lib/simulator-process.ts with fork(): options come as one JSON argument,
 * the addresses go back as the first IPC message, then control calls arrive as
 * `{ id, action, args }` and are answered `{ id, ok, result | error }`.
 */
import { type EmitOptions, type SimulatorOptions, startSimulator } from '@observation-service/simulator';
import { now, sleep } from '../lib/clock.ts';
import { serveIpc } from '../lib/ipc-child.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as SimulatorOptions;
const sim = await startSimulator({ pingIntervalMs: 0, ...options });

/**
 * Pushes `count` events at `rate` per second, one emit() per event, and records when each one
 * was handed to the sockets: emit() frames and writes synchronously before its first await, so
 * the stamp taken right after the call is the moment the frame went to the kernel.
 */
async function pace(
  rate: number,
  count: number,
  emitOptions?: EmitOptions,
): Promise<{ ids: number[]; sentAt: number[] }> {
  const sentAt: number[] = [];
  const pending: Promise<{ id: number }[]>[] = [];
  const started = now();
  while (pending.length < count) {
    const due = started + (pending.length * 1000) / rate;
    const wait = due - now();
    if (wait > 0) {
      await sleep(Math.max(1, Math.floor(wait)));
      continue;
    }
    pending.push(sim.control.emit(1, emitOptions));
    sentAt.push(now());
  }
  const ids = (await Promise.all(pending)).map((events) => (events[0] as { id: number }).id);
  return { ids, sentAt };
}

async function perform(action: string, args: unknown[]): Promise<unknown> {
  switch (action) {
    case 'emit': {
      // The events themselves stay here: only their number and id range cross the process line.
      // IPC turns a missing argument into null.
      const [count, emitOptions] = args as [number, { taskIds?: number[] } | null];
      const events = await sim.control.emit(count, emitOptions ?? undefined);
      return { emitted: events.length, firstId: events[0]?.id, lastId: events.at(-1)?.id };
    }
    case 'pace':
      return pace(args[0] as number, args[1] as number, (args[2] as EmitOptions | null) ?? undefined);
    case 'cpu': {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1000;
    }
    default: {
      const method = (sim.control as unknown as Record<string, unknown>)[action];
      if (typeof method !== 'function') throw new Error(`no control action ${action}`);
      return (method as (...a: unknown[]) => unknown).apply(sim.control, args);
    }
  }
}

serveIpc(
  { apiUrl: sim.apiUrl, wsUrl: sim.wsUrl, siteUrl: sim.siteUrl, token: sim.token, serviceId: sim.serviceId },
  perform,
  () => {
    sim.stop().then(() => process.exit(0));
  },
);
