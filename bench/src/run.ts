/**
 * `npm run bench`: runs every scenario in turn (after the build, see scripts/run.mjs), prints ONE
 * table and writes bench/results.json. Every figure with a baseline was measured next to it in
 * this run, on this machine.
 *
 *   node bench/src/run.ts [--only P1,P3] [--out path] [--cpu-prof dir]
 * `--cpu-prof dir`: P1 writes a CPU profile of each client's measured bursts there, P4 of each
 * measured read of its two loopback rows (read them with src/cpuprofile-top.ts); sampling costs
 * CPU, so such a run's figures are not the suite's.
 * Exit code: 0 when every judged figure passed, 1 when one failed or a scenario broke.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { now } from './lib/clock.ts';
import { CpuProfiler } from './lib/cpu-profile.ts';
import { type Figure, targetText } from './lib/figure.ts';
import { machineInfo } from './lib/machine.ts';
import { renderTable } from './lib/table.ts';
import { p1RealtimeThroughput } from './p1-realtime-throughput.ts';
import { p2Done, p2Hooks, p2NodeRedThroughput } from './p2-node-red-throughput.ts';
import { p3PushLatency } from './p3-push-latency.ts';
import { p4HistoryPaging } from './p4-history-paging.ts';
import { p5HistoryMemory } from './p5-history-memory.ts';
import { p6OutageCatchUp } from './p6-outage-catch-up.ts';
import { p7PackedSize } from './p7-packed-size.ts';
import { p8SimulatorPushRate } from './p8-simulator-push-rate.ts';
import { p9N8nTriggerThroughput } from './p9-n8n-trigger-throughput.ts';
import { p10Normalization } from './p10-normalization.ts';
import { p11FreshStart } from './p11-fresh-start.ts';
import { p12Media } from './p12-media.ts';
import { p13N8nQueueMode } from './p13-n8n-queue-mode.ts';
import { p14CrashRepeatSpan } from './p14-crash-repeat-span.ts';
import { p15BusySecond } from './p15-busy-second.ts';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? undefined : args[index + 1];
};
const profileDir = option('cpu-prof');
const profiler = profileDir === undefined ? undefined : new CpuProfiler(profileDir);

interface Scenario {
  id: string;
  name: string;
  run(): Promise<Figure | Figure[]>;
}

/**
 * The sizes here keep the whole run near 10 minutes on 2 shared cores. The client-side ratios
 * (P1, P2, P9) take more rounds than the rest: on this VM one round's ratio can land anywhere from
 * 0.6 to 1.1 (a round that touches new memory pays ~17 µs a page fault), and P1-cpu's median of
 * 5 rounds came out anywhere from 0.73 to 1.21 in ten runs of the same code.
 */
const scenarios: Scenario[] = [
  {
    id: 'P8',
    name: 'simulator push rate over one socket',
    run: () => p8SimulatorPushRate({ events: 100_000, runs: 5 }),
  },
  {
    id: 'P1',
    name: 'realtime throughput, core subscription',
    run: () => p1RealtimeThroughput({ events: 50_000, runs: 9, profiler }),
  },
  { id: 'P10', name: 'normalization', run: () => p10Normalization({ events: 50_000, runs: 5 }) },
  {
    id: 'P3',
    name: 'push-to-output latency',
    run: () => p3PushLatency({ rate: 1_000, events: 3_000, runs: 3 }),
  },
  {
    id: 'P2',
    name: 'Node-RED events node throughput',
    run: () => p2NodeRedThroughput({ events: 20_000, runs: 7 }),
  },
  {
    id: 'P2-hooks',
    name: 'Node-RED: our hooks in, a flow without our nodes',
    // A 2 % target needs more than P2's rounds on a shared machine: one round's ratio swung from
    // 0.78 to 1.48 in a four-round run, and the median of 7 rounds of 20,000 events (0.2 s each)
    // read anywhere from 0.83 to 0.99 on the same code. Longer bursts and two more rounds.
    run: () => p2Hooks({ events: 60_000, runs: 9 }),
  },
  {
    id: 'P2-done',
    name: 'Node-RED events node, handled when the flow is done',
    // 11 rounds, not P2's 7: single rounds per CPU-second ranged 0.44-1.48 on a loaded machine.
    run: () => p2Done({ events: 20_000, runs: 11 }),
  },
  {
    id: 'P9',
    name: 'n8n trigger throughput',
    run: () => p9N8nTriggerThroughput({ events: 20_000, runs: 7 }),
  },
  { id: 'P4', name: 'history paging', run: () => p4HistoryPaging({ events: 100_000, runs: 3, profiler }) },
  {
    id: 'P5',
    name: 'RSS growth streaming history',
    run: () => p5HistoryMemory({ events: 1_000_000, runs: 3, form: 'basic' }),
  },
  {
    id: 'P6',
    name: 'catch-up after an outage',
    run: async () => [
      await p6OutageCatchUp({ runs: 3, outageMs: 10_000, rate: 1_000 }),
      await p6OutageCatchUp({
        id: 'P6-messy',
        runs: 3,
        outageMs: 10_000,
        rate: 1_000,
        simulator: { historyTies: 'per-request', historyLagMs: 1_000 },
        threshold: 2.5,
      }),
    ],
  },
  { id: 'P11', name: 'fresh start on a busy service', run: () => p11FreshStart({ runs: 5 }) },
  {
    id: 'P12',
    name: 'snapshots with the event, annotation off the main thread',
    run: () => p12Media({ runs: 3 }),
  },
  {
    id: 'P13',
    name: "n8n queue mode: the trigger against n8n's Webhook node",
    run: () => p13N8nQueueMode(),
  },
  {
    id: 'P14',
    name: 'crash repeat span (SIGKILL restarts)',
    run: () => p14CrashRepeatSpan({ runs: 1, kills: 20 }),
  },
  { id: 'P15', name: 'where reading a busy second whole stops', run: () => p15BusySecond() },
  { id: 'P7', name: 'packed size', run: () => p7PackedSize() },
];

const only = option('only')
  ?.split(',')
  .map((id) => id.trim().toUpperCase())
  .filter(Boolean);
const out = option('out') ?? fileURLToPath(new URL('../results.json', import.meta.url));
// Ids are matched whatever their case (`--only p2-done`), as scripts/run.mjs matches P13.
const runs = (scenario: Scenario) => !only || only.includes(scenario.id.toUpperCase());
const unknown = only?.filter((id) => !scenarios.some((scenario) => scenario.id.toUpperCase() === id)) ?? [];
if (unknown.length > 0) {
  console.error(
    `--only: unknown scenario(s) ${unknown.join(', ')}; known: ${scenarios.map((s) => s.id).join(', ')}`,
  );
  process.exit(2);
}

const machine = machineInfo();
console.error(
  `bench: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, load ${machine.loadAverageAtStart.join(' ')}`,
);
const started = now();
const figures: Figure[] = [];
const timings: Record<string, number> = {};
for (const scenario of scenarios) {
  if (!runs(scenario)) continue;
  const scenarioStarted = now();
  process.stderr.write(`bench: ${scenario.id} ${scenario.name} … `);
  try {
    const result = await scenario.run();
    figures.push(...(Array.isArray(result) ? result : [result]));
  } catch (error) {
    // A broken scenario still gets its row, so the table shows what is missing and why.
    figures.push({
      id: scenario.id,
      scenario: scenario.name,
      unit: '',
      value: Number.NaN,
      min: Number.NaN,
      max: Number.NaN,
      runs: [],
      target: { kind: 'report' },
      targetText: targetText({ kind: 'report' }, ''),
      pass: false,
      problems: [`the scenario failed: ${error instanceof Error ? error.message : String(error)}`],
    });
  }
  timings[scenario.id] = Math.round((now() - scenarioStarted) / 100) / 10;
  process.stderr.write(`${timings[scenario.id]} s\n`);
}
const seconds = Math.round((now() - started) / 100) / 10;

console.log(renderTable(figures));
console.log(
  `\n${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.date}; total ${seconds} s`,
);
writeFileSync(
  out,
  `${JSON.stringify(
    {
      machine: { ...machine, loadAverageAtEnd: loadavg().map((value) => Math.round(value * 100) / 100) },
      totalSeconds: seconds,
      scenarioSeconds: timings,
      figures,
    },
    null,
    2,
  )}\n`,
);
console.log(`results written to ${out}`);
process.exit(figures.some((figure) => figure.pass === false) ? 1 : 0);
