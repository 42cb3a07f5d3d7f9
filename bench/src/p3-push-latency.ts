/**
 * P3: push-to-output latency at 1,000 events/s. The simulator (own process) pushes one event per
 * emit at a steady 1,000/s and stamps each with the time its frame was handed to the socket;
 * every consumer stamps the moment an event reaches its output. Both stamps come from
 * CLOCK_MONOTONIC (lib/clock.ts), which all processes on the machine share, so latency is a
 * plain difference, with no clock sync and nothing added to the payload.
 *   raw:      `ws` + JSON.parse, in the runner process (the baseline)
 *   core:     core's subscription handler, in the runner process
 *   node-red: our `observation events` node's message reaching the next node (embedded Node-RED,
 *             own process); Node-RED's `websocket in` → `json` in the same runtime is recorded too
 * Each round measures all of them back to back, one consumer connected at a time.
 */
import { type Counter, warmUp } from './lib/burst.ts';
import { CoreClient } from './lib/core-client.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { NodeRedProcess } from './lib/node-red-process.ts';
import { RawClient } from './lib/raw-client.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median, percentile, round } from './lib/stats.ts';

interface Latency {
  p50: number;
  p99: number;
}

type Variant = 'raw' | 'core' | 'node-red' | 'node-red-websocket';

async function paced(
  sim: SimulatorProcess,
  consumer: Counter,
  rate: number,
  events: number,
): Promise<Latency> {
  await consumer.reset(true);
  const { ids, sentAt } = await sim.pace(rate, events);
  const { received } = await consumer.waitFor(events, 30_000);
  if (received !== events) throw new Error(`P3: ${received} of ${events} paced events arrived`);
  const handled = await consumer.times();
  const sent = new Map(ids.map((id, index) => [id, sentAt[index] as number]));
  const latencies = handled.ids.map((id, index) => {
    const at = id === undefined ? undefined : sent.get(id);
    if (at === undefined) throw new Error(`P3: the consumer handled an event that was not paced (${id})`);
    return (handled.times[index] as number) - at;
  });
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

export async function p3PushLatency({
  rate,
  events,
  runs,
}: {
  rate: number;
  events: number;
  runs: number;
}): Promise<Figure[]> {
  const sim = await SimulatorProcess.start({ form: 'extended' });
  const red = await NodeRedProcess.start();
  const measure = async (variant: Variant, count: number): Promise<Latency> => {
    if (variant === 'raw' || variant === 'core') {
      const client =
        variant === 'raw'
          ? await RawClient.connect(sim.realtimeUrl())
          : await CoreClient.subscribe(sim.addresses);
      try {
        await warmUp(sim, client.counter);
        return await paced(sim, client.counter, rate, count);
      } finally {
        await client.close();
      }
    }
    await red.deploy(variant === 'node-red' ? 'observation' : 'websocket', sim.addresses);
    try {
      await warmUp(sim, red.counter);
      return await paced(sim, red.counter, rate, count);
    } finally {
      await red.deploy('none', sim.addresses);
    }
  };
  const variants: Variant[] = ['raw', 'core', 'node-red', 'node-red-websocket'];
  const results: Record<Variant, Latency[]> = { raw: [], core: [], 'node-red': [], 'node-red-websocket': [] };
  try {
    for (const variant of variants) await measure(variant, Math.round(events / 5));
    for (let run = 0; run < runs; run++) {
      // Rotate the order so no consumer always runs right after the same one.
      const order = variants.map((_, index) => variants[(index + run) % variants.length] as Variant);
      for (const variant of order) results[variant].push(await measure(variant, events));
    }
  } finally {
    await red.stop();
    await sim.stop();
  }
  const p50 = (variant: Variant) => round(median(results[variant].map((r) => r.p50)), 3);
  const raw = { name: 'raw ws + JSON.parse', runs: results.raw.map((r) => r.p99) };
  return [
    makeFigure({
      id: 'P3-core',
      scenario: `push-to-handler latency p99 at ${rate.toLocaleString('en')} events/s, core subscription`,
      unit: 'ms',
      digits: 3,
      runs: results.core.map((r) => r.p99),
      baseline: raw,
      target: { kind: 'ratio-at-most', threshold: 1.5 },
      details: { eventsPerRun: events, p50: p50('core'), baselineP50: p50('raw') },
    }),
    makeFigure({
      id: 'P3-node-red',
      scenario: `push-to-output latency p99 at ${rate.toLocaleString('en')} events/s, Node-RED observation events node`,
      unit: 'ms',
      digits: 3,
      runs: results['node-red'].map((r) => r.p99),
      baseline: raw,
      target: { kind: 'ratio-at-most', threshold: 1.5 },
      details: {
        eventsPerRun: events,
        p50: p50('node-red'),
        baselineP50: p50('raw'),
        nodeRedWebsocketInP99: round(median(results['node-red-websocket'].map((r) => r.p99)), 3),
        nodeRedWebsocketInP50: p50('node-red-websocket'),
      },
    }),
  ];
}
