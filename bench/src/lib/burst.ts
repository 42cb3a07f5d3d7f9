import { now, sleep, until } from './clock.ts';
import type { SimulatorProcess } from './simulator-process.ts';

/** Anything that counts the events it has been handed. */
export interface Counter {
  received: number;
  lastAt: number;
  reset(): void;
}

/**
 * Streams a few hundred events through a freshly connected consumer (JIT, buffers, the first
 * frames after the upgrade), waits until nothing more arrives, then zeroes its counters.
 */
export async function warmUp(sim: SimulatorProcess, consumer: Counter, events = 2_000): Promise<void> {
  for (let round = 0; consumer.received === 0; round++) {
    if (round > 100) throw new Error('the consumer received no warm-up event');
    await sim.emit(20);
    await sleep(20);
  }
  await sim.emit(events);
  let seen = -1;
  while (seen !== consumer.received) {
    seen = consumer.received;
    await sleep(100);
  }
  consumer.reset();
}

export interface BurstResult {
  eventsPerSecond: number;
  /** CPU time of this process per event, microseconds. */
  clientCpuMicros: number;
  /** CPU time of the simulator process per event, microseconds. */
  simulatorCpuMicros: number;
}

/**
 * Asks the simulator for `count` events at full speed and times them from the request to the
 * last one handled by the consumer. Fails unless exactly `count` arrive.
 */
export async function burst(sim: SimulatorProcess, consumer: Counter, count: number): Promise<BurstResult> {
  consumer.reset();
  const simCpuBefore = await sim.cpuMs();
  const cpuBefore = process.cpuUsage();
  const started = now();
  await sim.emit(count);
  await until(() => consumer.received >= count, `${count} events`, 120_000, 1);
  const seconds = (consumer.lastAt - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const simCpu = (await sim.cpuMs()) - simCpuBefore;
  await sleep(50);
  if (consumer.received !== count)
    throw new Error(`expected ${count} events, the consumer got ${consumer.received}`);
  return {
    eventsPerSecond: count / seconds,
    clientCpuMicros: (cpu.user + cpu.system) / count,
    simulatorCpuMicros: (simCpu * 1000) / count,
  };
}
