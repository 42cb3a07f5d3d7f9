/**
 * Push rate of the simulator over ONE WebSocket: starts the built CLI in its own process (so the
 * producer and this consumer do not share a thread), connects a raw `ws` client, asks for N
 * events through the control endpoint and measures how fast they arrive.
 *
 *   node bench/push-rate.ts [--count 200000] [--form extended|basic] [--realism ideal|mild|messy] [--json]
 *
 * `--realism` defaults to ideal (every deployment behaviour off), the figure P8 holds to
 * ≥ 50,000 events/s; mild and messy show what camera latency, late publication and numeric
 * timestamps cost.
 *
 * Run after `pnpm build` (the `bench` script of package.json does both through turbo).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

interface Addresses {
  siteUrl: string;
  wsUrl: string;
  serviceId: string;
  token: string;
}

/** CPU seconds a process has used (Linux /proc; undefined elsewhere). */
function processCpuSeconds(pid: number | undefined): number | undefined {
  const path = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(path)) return undefined;
  // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100/s).
  const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

const count = Number(argument('count', '200000'));
const form = argument('form', 'extended');
const realism = argument('realism', 'ideal');
const asJson = process.argv.includes('--json');

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const child = spawn(
  process.execPath,
  [cli, '--port', '0', '--rate', '0', '--history-size', '0', '--realism', realism, '--json'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);

try {
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const sim = JSON.parse(line) as Addresses;
  const path = form === 'basic' ? '/events/realtime/1' : `/events/realtime/${sim.serviceId}/0`;
  const ws = new WebSocket(`${sim.wsUrl}${path}?token=${encodeURIComponent(sim.token)}`);
  await once(ws, 'open');
  let received = 0;
  let bytes = 0;
  let firstAt = 0;
  const done = new Promise<number>((resolve) => {
    ws.on('message', (data: Buffer) => {
      if (received === 0) firstAt = performance.now();
      received++;
      bytes += data.length;
      if (received === count) resolve(performance.now());
    });
  });
  const serverCpuBefore = processCpuSeconds(child.pid);
  const clientCpuBefore = process.cpuUsage();
  const started = performance.now();
  const body = JSON.stringify(form === 'basic' ? { count, taskIds: [1] } : { count });
  const response = await fetch(`${sim.siteUrl}/__control/emit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (!response.ok) throw new Error(`emit failed: HTTP ${response.status} ${await response.text()}`);
  const finished = await done;
  const serverCpu = (processCpuSeconds(child.pid) ?? Number.NaN) - (serverCpuBefore ?? Number.NaN);
  const clientCpu = process.cpuUsage(clientCpuBefore);
  ws.close();
  const seconds = (finished - started) / 1000;
  const result = {
    benchmark: 'simulator push rate over one socket',
    form,
    realism,
    events: received,
    seconds: Number(seconds.toFixed(3)),
    eventsPerSecond: Math.round(received / seconds),
    firstEventAfterMs: Number((firstAt - started).toFixed(1)),
    megabytesPerSecond: Number((bytes / 1e6 / seconds).toFixed(1)),
    averageEventBytes: Math.round(bytes / received),
    // On a shared machine wall-clock rates swing with the load; CPU time per event does not.
    serverCpuMicrosecondsPerEvent: Number(((serverCpu * 1e6) / received).toFixed(2)),
    serverEventsPerCpuSecond: Math.round(received / serverCpu),
    clientCpuMicrosecondsPerEvent: Number(((clientCpu.user + clientCpu.system) / received).toFixed(2)),
  };
  if (asJson) console.log(JSON.stringify(result));
  else {
    console.log(
      `simulator push rate (${form} form, ${realism}, one socket): ${result.eventsPerSecond.toLocaleString('en')} events/s ` +
        `(${received.toLocaleString('en')} events in ${result.seconds} s, ${result.megabytesPerSecond} MB/s, ` +
        `~${result.averageEventBytes} bytes/event); simulator CPU ${result.serverCpuMicrosecondsPerEvent} µs/event ` +
        `= ${result.serverEventsPerCpuSecond.toLocaleString('en')} events per CPU-second, client CPU ${result.clientCpuMicrosecondsPerEvent} µs/event`,
    );
  }
} finally {
  child.kill('SIGTERM');
}
