/**
 * P13: n8n queue mode (a main and two workers on PostgreSQL and Redis, the packed package installed
 * on each: e2e/n8n/queue-mode's helpers) at Batch Size 1 and 100. The same workflow (an Edit Fields
 * node recording each event's id) is fed once by the Observation Trigger (default options besides
 * Batch Size) and once by n8n's own Webhook node, at the same rate, from the same kind of stream, on
 * the same cluster and workers: what the trigger costs against n8n's own path.
 *
 * The webhook side is fed by a forwarder in this process that receives the simulator's pushes and
 * POSTs them (one event per request, or arrays of up to 100 events, after at most 1 s) with the
 * trigger's bound: at most 100 requests unfinished, each answered when its execution ended
 * (Respond: When Last Node Finishes), the rest waiting in order. Figures come from n8n's execution
 * records: executions/s from the first execution created to the last one stopped, and latency from
 * the simulator's push (seen by an observer socket) to the end of the execution carrying the event.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, fetch } from 'undici';
import { type Figure, makeFigure } from './lib/figure.ts';
import { round } from './lib/stats.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const e2e = join(root, 'e2e', 'n8n');
const rate = 200;
const maxUnfinished = 100;

// biome-ignore lint/suspicious/noExplicitAny: the e2e helpers are plain JavaScript modules
type Any = any;
const load = (path: string): Promise<Any> => import(pathToFileURL(join(e2e, path)).href);

interface Variant {
  side: 'trigger' | 'webhook';
  batchSize: 1 | 100;
  workflowId: string;
}

interface Measured {
  executions: number;
  events: number;
  executionsPerSecond: number;
  eventsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** CPU seconds each n8n process used during the variant, per 100 events. */
  cpuPer100Events: Record<string, number>;
  missing: number;
  /** Webhook requests that failed (their events are among `missing`), with a few reasons. */
  failedRequests: number;
  failureSamples: string[];
  repeated: number;
}

const recordNode = (expression: string) => ({
  id: randomUUID(),
  name: 'Record Event Id',
  type: 'n8n-nodes-base.set',
  typeVersion: 3.4,
  position: [480, 0],
  parameters: {
    assignments: { assignments: [{ id: 'r1', name: 'recordedEventId', type: 'number', value: expression }] },
    includeOtherFields: false,
    options: {},
  },
});

function triggerWorkflow(variant: Variant, credentialId: string) {
  return {
    id: variant.workflowId,
    name: `P13 trigger, Batch Size ${variant.batchSize}`,
    active: false,
    settings: { executionOrder: 'v1' },
    nodes: [
      {
        id: randomUUID(),
        name: 'Observation Trigger',
        type: '@observation-service/n8n-nodes-observation.observationTrigger',
        typeVersion: 1,
        position: [0, 0],
        parameters: { tasks: 'all', options: variant.batchSize > 1 ? { batchSize: variant.batchSize } : {} },
        credentials: { observationApi: { id: credentialId, name: 'Observation account' } },
      },
      recordNode('={{ $json.id }}'),
    ],
    connections: {
      'Observation Trigger': { main: [[{ node: 'Record Event Id', type: 'main', index: 0 }]] },
    },
  };
}

/** Webhook → (Split Out the array, at Batch Size 100) → Record Event Id. */
function webhookWorkflow(variant: Variant) {
  const split = variant.batchSize > 1;
  const nodes: Any[] = [
    {
      id: randomUUID(),
      webhookId: randomUUID(),
      name: 'Webhook',
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2,
      position: [0, 0],
      parameters: { httpMethod: 'POST', path: variant.workflowId, responseMode: 'lastNode', options: {} },
    },
    recordNode(split ? '={{ $json.id }}' : '={{ $json.body.id }}'),
  ];
  const connections: Any = {};
  if (split) {
    nodes.push({
      id: randomUUID(),
      name: 'Split Out',
      type: 'n8n-nodes-base.splitOut',
      typeVersion: 1,
      position: [240, 0],
      parameters: { fieldToSplitOut: 'body', options: {} },
    });
    connections.Webhook = { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] };
    connections['Split Out'] = { main: [[{ node: 'Record Event Id', type: 'main', index: 0 }]] };
  } else {
    connections.Webhook = { main: [[{ node: 'Record Event Id', type: 'main', index: 0 }]] };
  }
  return {
    id: variant.workflowId,
    name: `P13 webhook, batch ${variant.batchSize}`,
    active: false,
    settings: { executionOrder: 'v1' },
    nodes,
    connections,
  };
}

/** Receives the simulator's pushes and POSTs them to the webhook, at most 100 requests unfinished. */
function forwarder(sim: Any, url: string, batchSize: number) {
  const waiting: unknown[][] = [];
  let open: unknown[] | undefined;
  let openTimer: ReturnType<typeof setTimeout> | undefined;
  let unfinished = 0;
  const failures: string[] = [];
  // A request waits for its execution's end, queued behind the backlog: no header timeout.
  const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0, connections: maxUnfinished });
  const pump = () => {
    while (unfinished < maxUnfinished && waiting.length > 0) {
      const events = waiting.shift() as unknown[];
      unfinished++;
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batchSize === 1 ? events[0] : events),
        dispatcher,
      })
        .then(async (response) => {
          const text = await response.text();
          if (!response.ok) failures.push(`HTTP ${response.status} ${text.slice(0, 200)}`);
        })
        .catch((error: unknown) => {
          failures.push(
            String(error instanceof Error ? (error.cause ?? error.message) : error).slice(0, 200),
          );
        })
        .finally(() => {
          unfinished--;
          pump();
        });
    }
  };
  const seal = () => {
    if (openTimer) clearTimeout(openTimer);
    openTimer = undefined;
    if (open) waiting.push(open);
    open = undefined;
    pump();
  };
  const socket = new WebSocket(
    `${sim.wsUrl}/events/realtime/${encodeURIComponent(sim.serviceId)}/0?token=${encodeURIComponent(sim.token)}`,
  );
  socket.addEventListener('message', (message) => {
    const event = JSON.parse(String(message.data));
    if (!Number.isInteger(event?.id)) return;
    if (batchSize === 1) {
      waiting.push([event]);
      pump();
      return;
    }
    if (!open) {
      open = [];
      openTimer = setTimeout(seal, 1000);
    }
    open.push(event);
    if (open.length >= batchSize) seal();
  });
  return {
    opened: new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', () => reject(new Error('the forwarder could not connect')), {
        once: true,
      });
    }),
    failures,
    close: () => {
      socket.close();
      void dispatcher.close();
    },
  };
}

/** utime + stime of a process, in seconds (Linux /proc). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number);

export async function p13N8nQueueMode({
  events = { 1: 1_000, 100: 3_000 },
}: {
  events?: { 1: number; 100: number };
} = {}): Promise<Figure[]> {
  const services = await load('queue-mode/services.mjs');
  const missing = services.missingServices();
  if (missing) throw new Error(missing);
  const install = await load('n8n-install.mjs');
  const cluster = await load('queue-mode/n8n-cluster.mjs');
  const tools = await load('queue-mode/process-tools.mjs');
  const { parseFlatted } = await load('execution-data.mjs');
  const { simulatorCredential } = await load('simulator-credential.mjs');
  const { startPushObserver } = await load('queue-mode/push-observer.mjs');
  const { startSimulator } = await import(
    pathToFileURL(join(root, 'packages', 'simulator', 'dist', 'index.js')).href
  );
  const env = install.toolchainEnv();
  install.ensureN8nInstall({ env, log: (message: string) => process.stderr.write(`\n  ${message}`) });

  const variants: Variant[] = [
    { side: 'trigger', batchSize: 1, workflowId: 'obsP13Trigger1' },
    { side: 'webhook', batchSize: 1, workflowId: 'obsP13Webhook1' },
    { side: 'trigger', batchSize: 100, workflowId: 'obsP13Trigger100' },
    { side: 'webhook', batchSize: 100, workflowId: 'obsP13Webhook100' },
  ];
  const cleanup: Array<() => unknown> = [];
  const workDir = mkdtempSync(join(tmpdir(), 'observation-bench-p13-'));
  cleanup.push(() => rmSync(workDir, { recursive: true, force: true }));
  // One simulator per variant: a trigger listens to its own only, the webhook forwarder to its own.
  const sims: Any[] = [];
  for (const [index] of variants.entries()) {
    const sim = await startSimulator({ port: 0, seed: 130 + index, historySize: 0 });
    sims.push(sim);
    cleanup.push(() => sim.stop());
  }
  const measured = new Map<Variant, Measured>();
  const loadAtStart = loadavg().map((value) => round(value, 2));
  try {
    const [redis, postgres] = await Promise.all([services.startRedis(workDir), services.startPostgres()]);
    cleanup.push(
      () => redis.stop(),
      () => postgres.stop(),
    );
    const shared = {
      ...cluster.clusterEnv({
        redisPort: redis.port,
        postgres,
        encryptionKey: randomBytes(24).toString('hex'),
      }),
      // Per-execution info lines of three processes would be work of their own.
      N8N_LOG_LEVEL: 'warn',
      // P13_CPU_PROFILE=<folder>: V8 CPU profiles of the main and the workers, written as they stop.
      ...(process.env.P13_CPU_PROFILE
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.P13_CPU_PROFILE}` }
        : {}),
    };
    const tarball = install.packTarball(join(workDir, 'pack'), { env });
    const folders = Object.fromEntries(
      ['main', 'worker-1', 'worker-2'].map((name) => [name, join(workDir, name)]),
    ) as Record<string, string>;
    for (const folder of Object.values(folders)) {
      mkdirSync(folder, { recursive: true });
      install.installIntoN8n(tarball, folder, { env });
    }
    const credentials = variants.map((_variant, index) =>
      simulatorCredential(sims[index], `obsP13Cred${index}`),
    );
    writeFileSync(join(workDir, 'credentials.json'), JSON.stringify(credentials));
    const workflows = join(workDir, 'workflows');
    mkdirSync(workflows);
    for (const [index, variant] of variants.entries()) {
      const workflow =
        variant.side === 'trigger'
          ? triggerWorkflow(variant, credentials[index].id)
          : webhookWorkflow(variant);
      writeFileSync(join(workflows, `${variant.workflowId}.json`), JSON.stringify(workflow));
    }
    const command = async (args: string[]) => {
      const result = await cluster.n8nCommand(args, folders.main, shared);
      if (result.status !== 0) throw new Error(`n8n ${args[0]}: ${String(result.output).slice(-1500)}`);
    };
    await command(['import:credentials', `--input=${join(workDir, 'credentials.json')}`]);
    await command(['import:workflow', '--separate', `--input=${workflows}`]);
    await Promise.all(variants.map((variant) => command(['publish:workflow', `--id=${variant.workflowId}`])));
    const workers = await Promise.all([
      cluster.startWorker('worker-1', folders['worker-1'], shared),
      cluster.startWorker('worker-2', folders['worker-2'], shared),
    ]);
    for (const worker of workers) cleanup.push(() => worker.kill());
    const main = await cluster.startMain(folders.main, shared);
    cleanup.push(() => main.kill());
    const processes: Record<string, number> = {
      main: main.child.pid,
      'worker-1': workers[0].child.pid,
      'worker-2': workers[1].child.pid,
    };
    await tools.until(
      () =>
        variants.every(
          (variant, index) => variant.side === 'webhook' || sims[index].control.stats().openSockets >= 1,
        ),
      120_000,
      200,
      'the triggers subscribing',
    );

    const records = (workflowId: string) => {
      const result = postgres.psql(
        `SELECT floor(extract(epoch FROM e."createdAt") * 1000), floor(extract(epoch FROM e."stoppedAt") * 1000), e.status, d.data
         FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id
         WHERE e."workflowId" = '${workflowId}'`,
      );
      if (result.status !== 0) throw new Error(`reading executions failed: ${result.stderr}`);
      return result.rows.map(([createdAt, stoppedAt, status, data]: string[]) => {
        let ids: number[] = [];
        try {
          const run = parseFlatted(data);
          ids = (run?.resultData?.runData?.['Record Event Id']?.[0]?.data?.main?.[0] ?? [])
            .map((item: Any) => item?.json?.recordedEventId)
            .filter((id: unknown) => Number.isInteger(id));
        } catch {
          // counted as missing below
        }
        return { createdAt: Number(createdAt), stoppedAt: Number(stoppedAt), status, ids };
      });
    };

    for (const [index, variant] of variants.entries()) {
      const sim = sims[index];
      const count = events[variant.batchSize];
      const observer = await startPushObserver(sim);
      const feed =
        variant.side === 'webhook'
          ? forwarder(sim, `http://127.0.0.1:${main.port}/webhook/${variant.workflowId}`, variant.batchSize)
          : undefined;
      await feed?.opened;
      // The subscription of a trigger activated at n8n's start is live from its start second.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const cpuBefore = Object.fromEntries(
        Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)]),
      );
      const firstId = sim.control.stats().historySize + 1;
      sim.control.setRate(rate);
      await tools.until(
        () => sim.control.stats().historySize - firstId + 1 >= count,
        count * 20,
        20,
        'events emitted',
      );
      sim.control.setRate(0);
      const lastId = sim.control.stats().historySize;
      const seen = () => new Set(records(variant.workflowId).flatMap((execution: Any) => execution.ids));
      await tools
        .until(
          () => {
            const ids = seen();
            for (let id = firstId; id <= lastId; id++) if (!ids.has(id)) return false;
            return true;
          },
          600_000,
          1000,
          `every event of ${variant.side} at batch ${variant.batchSize} executed`,
        )
        .catch(() => undefined);
      const cpu = Object.fromEntries(
        Object.entries(processes).map(([name, pid]) => [
          name,
          round(((cpuSeconds(pid) - (cpuBefore[name] as number)) / (lastId - firstId + 1)) * 100, 2),
        ]),
      );
      feed?.close();
      observer.close();
      const executions = records(variant.workflowId).filter(
        (execution: Any) => execution.status === 'success',
      );
      const counts = new Map<number, number>();
      const latencies: number[] = [];
      for (const execution of executions)
        for (const id of execution.ids) {
          counts.set(id, (counts.get(id) ?? 0) + 1);
          const pushed = observer.pushedAt.get(id);
          if (pushed !== undefined) latencies.push(execution.stoppedAt - pushed);
        }
      latencies.sort((a, b) => a - b);
      const first = Math.min(...executions.map((execution: Any) => execution.createdAt));
      const last = Math.max(...executions.map((execution: Any) => execution.stoppedAt));
      const seconds = (last - first) / 1000;
      let missingIds = 0;
      for (let id = firstId; id <= lastId; id++) if (!counts.has(id)) missingIds++;
      measured.set(variant, {
        executions: executions.length,
        events: lastId - firstId + 1,
        executionsPerSecond: round(executions.length / seconds, 2),
        eventsPerSecond: round((lastId - firstId + 1) / seconds, 1),
        latencyP50Ms: percentile(latencies, 50),
        latencyP99Ms: percentile(latencies, 99),
        cpuPer100Events: cpu,
        missing: missingIds,
        failedRequests: feed?.failures.length ?? 0,
        failureSamples: [...new Set(feed?.failures ?? [])].slice(0, 3),
        repeated: [...counts.values()].filter((n) => n > 1).length,
      });
      process.stderr.write(
        `\n  P13 ${variant.side} batch ${variant.batchSize}: ${JSON.stringify(measured.get(variant))}`,
      );
    }
  } finally {
    for (const step of cleanup.reverse())
      await Promise.resolve()
        .then(step)
        .catch(() => undefined);
  }
  const loadAtEnd = loadavg().map((value) => round(value, 2));
  return ([1, 100] as const).map((batchSize) => {
    const trigger = measured.get(
      variants.find((v) => v.side === 'trigger' && v.batchSize === batchSize) as Variant,
    ) as Measured;
    const webhook = measured.get(
      variants.find((v) => v.side === 'webhook' && v.batchSize === batchSize) as Variant,
    ) as Measured;
    const problems = [
      ...(trigger.missing > 0 ? [`${trigger.missing} events not executed by the trigger's workflow`] : []),
      ...(webhook.missing > 0 ? [`${webhook.missing} events not executed through the webhook`] : []),
    ];
    return makeFigure({
      id: batchSize === 1 ? 'P13' : 'P13-batch100',
      scenario: `n8n queue mode (main + 2 workers), Batch Size ${batchSize}: Observation Trigger executions/s`,
      unit: 'executions/s',
      digits: 2,
      runs: [trigger.executionsPerSecond],
      baseline: { name: "n8n's Webhook node, same cluster, same rate", runs: [webhook.executionsPerSecond] },
      target: batchSize === 1 ? { kind: 'ratio-at-least', threshold: 0.9 } : { kind: 'report' },
      problems,
      details: { rate, trigger, webhook, loadAverage: { start: loadAtStart, end: loadAtEnd } },
    });
  });
}
