/**
 * Realtime figures of the core subscription, each next to a raw `ws` + `JSON.parse` baseline
 * measured in the same run:
 *   P1  throughput (events/s and client CPU per event) over one extended socket;
 *   P3  push-to-handler latency p50/p99 at 1,000 events/s;
 *   P6  catch-up after a 10 s outage at 1,000 events/s (and whether anything was lost).
 *
 *   pnpm --filter @observation-service/core... build && node packages/core/bench/realtime.ts
 *   options: --events 100000 --runs 3 --json
 *
 * P1 and P6 run the simulator in its own process (producer and consumer must not share a
 * thread). P3 needs the moment of each push, so it runs the simulator in this process and
 * stamps events as they are handed to the sockets; at 1,000 events/s its share of the thread
 * is small, and the raw baseline pays it too.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClient, type ObservationClient, type Subscription } from '@observation-service/core';
import { startSimulator } from '@observation-service/simulator';
import WebSocket from 'ws';

interface Addresses {
  siteUrl: string;
  apiUrl: string;
  wsUrl: string;
  serviceId: string;
  token: string;
}

type Control = (action: string, body?: Record<string, unknown>) => Promise<Record<string, unknown>>;

const args = process.argv.slice(2);
const flag = (name: string, fallback: string): string => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? fallback : (args[index + 1] ?? fallback);
};
const EVENTS = Number(flag('events', '100000'));
const RUNS = Number(flag('runs', '3'));
const asJson = args.includes('--json');
const log = (line: string) => {
  if (!asJson) console.log(line);
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

async function startSimulatorProcess(extra: string[] = []) {
  const cli = fileURLToPath(new URL('../../simulator/dist/cli.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [cli, '--port', '0', '--rate', '0', '--history-size', '0', '--json', ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const sim = JSON.parse(line) as Addresses;
  const control = async (action: string, body: Record<string, unknown> = {}) => {
    const response = await fetch(`${sim.siteUrl}/__control/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${action}: HTTP ${response.status} ${await response.text()}`);
    return ((await response.json()) as { result?: Record<string, unknown> }).result ?? {};
  };
  return { sim, control, stop: () => child.kill('SIGTERM') };
}

function clientFor(sim: Addresses): ObservationClient {
  return createClient({
    url: sim.siteUrl,
    serviceId: sim.serviceId,
    form: 'extended',
    auth: { token: sim.token },
  });
}

// ---- P1: throughput ----------------------------------------------------------------------

interface ThroughputRun {
  eventsPerSecond: number;
  cpuMicrosPerEvent: number;
}

async function rawThroughput(sim: Addresses, control: Control) {
  const ws = new WebSocket(
    `${sim.wsUrl}/events/realtime/${sim.serviceId}/0?token=${encodeURIComponent(sim.token)}`,
  );
  await once(ws, 'open');
  let received = 0;
  let sink = 0;
  ws.on('message', (data: Buffer) => {
    const event = JSON.parse(data.toString()) as { id: number };
    sink += event.id;
    received++;
  });
  const result = await measureThroughput(() => received, control);
  ws.close();
  await once(ws, 'close');
  return { ...result, sink };
}

async function subscriptionThroughput(sim: Addresses, control: Control) {
  const client = clientFor(sim);
  let received = 0;
  let sink = 0;
  const sub = client.events.subscribe('all', {
    onEvent(event) {
      sink += event.id ?? 0;
      received++;
    },
  });
  await until(() => sub.state === 'open', 'open');
  const result = await measureThroughput(() => received, control);
  const stats = sub.stats;
  await client.close();
  if (stats.delivered !== EVENTS || stats.duplicatesDropped !== 0 || stats.malformed !== 0) {
    throw new Error(`subscription delivered ${JSON.stringify(stats)}`);
  }
  return { ...result, sink };
}

async function measureThroughput(received: () => number, control: Control): Promise<ThroughputRun> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await control('emit', { count: EVENTS });
  await until(() => received() >= EVENTS, 'all events');
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    eventsPerSecond: Math.round(EVENTS / seconds),
    cpuMicrosPerEvent: round((cpu.user + cpu.system) / EVENTS),
  };
}

async function throughput() {
  const { sim, control, stop } = await startSimulatorProcess();
  try {
    const raw: ThroughputRun[] = [];
    const core: ThroughputRun[] = [];
    // Warm-up of both paths (JIT, connection pools), then alternate so drift hits both alike.
    await rawThroughput(sim, control);
    await subscriptionThroughput(sim, control);
    for (let run = 0; run < RUNS; run++) {
      raw.push(await rawThroughput(sim, control));
      core.push(await subscriptionThroughput(sim, control));
    }
    const rawRate = median(raw.map((r) => r.eventsPerSecond));
    const coreRate = median(core.map((r) => r.eventsPerSecond));
    const rawCpu = median(raw.map((r) => r.cpuMicrosPerEvent));
    const coreCpu = median(core.map((r) => r.cpuMicrosPerEvent));
    return {
      id: 'P1',
      figure: 'realtime throughput, core subscription (events/s)',
      events: EVENTS,
      runs: RUNS,
      value: coreRate,
      baseline: rawRate,
      ratio: round(coreRate / rawRate, 3),
      target: 'ratio >= 0.9',
      min: Math.min(...core.map((r) => r.eventsPerSecond)),
      max: Math.max(...core.map((r) => r.eventsPerSecond)),
      baselineMin: Math.min(...raw.map((r) => r.eventsPerSecond)),
      baselineMax: Math.max(...raw.map((r) => r.eventsPerSecond)),
      // The CPU the client spends per event tells the overhead even when the producer is the limit.
      cpuMicrosPerEvent: coreCpu,
      baselineCpuMicrosPerEvent: rawCpu,
    };
  } finally {
    stop();
  }
}

// ---- P3: latency -------------------------------------------------------------------------

async function latency() {
  const sim = await startSimulator({ historySize: 0 });
  const RATE = 1_000;
  const SECONDS = 5;
  const BATCH = 10; // 10 events every 10 ms = 1,000 events/s
  const pushedAt = new Map<number, number>();
  const run = async (received: Map<number, number>) => {
    const ticks = (RATE / BATCH) * SECONDS;
    const started = performance.now();
    for (let tick = 0; tick < ticks; tick++) {
      const at = performance.now();
      // The ids are known only after emit resolves; its pushes are stamped with the time before.
      for (const event of await sim.control.emit(BATCH)) pushedAt.set(event.id, at);
      const next = started + ((tick + 1) * 1000) / (RATE / BATCH);
      await sleep(Math.max(0, next - performance.now()));
    }
    await until(() => received.size >= ticks * BATCH, 'latency events');
    const latencies = [...received].map(([id, at]) => at - (pushedAt.get(id) as number));
    return {
      p50: round(percentile(latencies, 50)),
      p99: round(percentile(latencies, 99)),
      n: latencies.length,
    };
  };
  try {
    const rawReceived = new Map<number, number>();
    const ws = new WebSocket(
      `${sim.wsUrl}/events/realtime/${sim.serviceId}/0?token=${encodeURIComponent(sim.token)}`,
    );
    await once(ws, 'open');
    ws.on('message', (data: Buffer) => {
      const event = JSON.parse(data.toString()) as { id: number };
      rawReceived.set(event.id, performance.now());
    });
    const raw = await run(rawReceived);
    ws.close();

    const client = clientFor(sim);
    const coreReceived = new Map<number, number>();
    const sub: Subscription = client.events.subscribe('all', {
      onEvent(event) {
        coreReceived.set(event.id as number, performance.now());
      },
    });
    await until(() => sub.state === 'open', 'open');
    const core = await run(coreReceived);
    await client.close();
    return {
      id: 'P3',
      figure: 'push-to-handler latency at 1,000 events/s, p99 (ms)',
      value: core.p99,
      baseline: raw.p99,
      ratio: round(core.p99 / raw.p99, 3),
      target: 'p99 ratio <= 1.5',
      p50: core.p50,
      baselineP50: raw.p50,
      events: core.n,
    };
  } finally {
    await sim.stop();
  }
}

// ---- P6: catch-up after an outage ----------------------------------------------------------

async function catchUpOnce() {
  const { sim, control, stop } = await startSimulatorProcess();
  const OUTAGE_MS = 10_000;
  try {
    const client = clientFor(sim);
    const ids: number[] = [];
    const states: { state: string; at: number }[] = [];
    const sub = client.events.subscribe(
      'all',
      {
        onEvent(event) {
          ids.push(event.id as number);
        },
        onStateChange(state) {
          states.push({ state, at: performance.now() });
        },
      },
      { backoff: { baseMs: 100, maxMs: 500 } },
    );
    await until(() => sub.state === 'open', 'open');
    await control('setRate', { eventsPerSecond: 1_000 });
    await sleep(2_000);
    await control('refuseConnections', { ms: OUTAGE_MS });
    await control('dropConnections');
    const outageStart = performance.now();
    await until(() => sub.state === 'backfilling', 'reconnect after the outage', OUTAGE_MS + 10_000);
    const reconnectedAt = performance.now();
    const backfilledBefore = sub.stats.backfilled;
    await until(() => sub.state === 'open', 'caught up', 60_000);
    const caughtUpAt = performance.now();
    const backfilled = sub.stats.backfilled - backfilledBefore;
    await sleep(1_000);
    await control('setRate', { eventsPerSecond: 0 });
    const emitted = (await control('stats')).eventsEmitted as number;
    // A figure is reported even when events are missing: the count says so.
    await until(() => new Set(ids).size >= emitted, 'the last events', 30_000).catch((error: unknown) => {
      console.error(`${(error as Error).message}: ${JSON.stringify({ emitted, stats: sub.stats })}`);
    });
    const stats = sub.stats;
    await client.close();
    const unique = new Set(ids);
    const first = Math.min(...ids);
    const missing = emitted - first + 1 - unique.size;
    return {
      id: 'P6',
      figure: 'catch-up after a 10 s outage at 1,000 events/s (s)',
      value: round((caughtUpAt - reconnectedAt) / 1000, 3),
      target: '< 2 s',
      outageSeconds: round((reconnectedAt - outageStart) / 1000, 2),
      backfilledEvents: backfilled,
      catchUpEventsPerSecond: Math.round(backfilled / ((caughtUpAt - reconnectedAt) / 1000)),
      delivered: stats.delivered,
      duplicatesDelivered: ids.length - unique.size,
      missing,
    };
  } finally {
    stop();
  }
}

/** P6 repeated: the median catch-up, with the spread and the worst loss/duplicate counts. */
async function catchUp() {
  const runs = [];
  for (let run = 0; run < RUNS; run++) runs.push(await catchUpOnce());
  const values = runs.map((r) => r.value);
  const middle = runs.find((r) => r.value === median(values)) as (typeof runs)[number];
  return {
    ...middle,
    runs: RUNS,
    min: Math.min(...values),
    max: Math.max(...values),
    missing: Math.max(...runs.map((r) => r.missing)),
    duplicatesDelivered: Math.max(...runs.map((r) => r.duplicatesDelivered)),
  };
}

const results = [];
for (const scenario of args.includes('--only-catch-up') ? [catchUp] : [throughput, latency, catchUp]) {
  const result = await scenario();
  results.push(result);
  log(`${result.id} ${result.figure}: ${JSON.stringify(result)}`);
}
if (asJson) console.log(JSON.stringify(results));
