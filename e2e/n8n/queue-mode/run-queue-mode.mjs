#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  addLoginExpiryTask,
  checkLoginExpiry,
  loginExpiryWorkflow,
  loginExpiryWorkflowId,
  startLoginExpirySink,
} from '../login-expiry.mjs';
import { printCheck } from '../n8n-cli.mjs';
import { ensureN8nInstall, root, toolchainEnv } from '../n8n-install.mjs';
import { writePackageReport } from '../package-report.mjs';
// Queue-mode end-to-end: the packed package in a real n8n 2.41 running as main + two workers on
// Redis and PostgreSQL, the Observation Trigger (catch-up on) fed by the simulator ('mild'
// realism: per-camera latency and late publication, so events arrive out of order and late).
// Three phases on one cluster, each checked from n8n's own execution records in PostgreSQL:
//   A. >= 500 events at 200/s over all tasks (QUEUE_E2E_EVENTS=5000 for the README's figures):
//      each exactly one successful execution, run by a worker;
//   B. main SIGKILLed mid-stream and restarted: the trigger resumes from its saved position; a
//      second workflow at Batch Size 100, on a simulator of its own, streams through the same
//      kill (a regrouped batch may repeat events, never lose one);
//   C. a worker SIGKILLed mid-stream: what n8n does with the jobs it held (measured, reported).
// Prints the figures (executions/s, push -> finished latency p50/p99) and adds its checks to
// packages/n8n-nodes/.vitest-report.json. See ../README.md, "Queue mode".
import { accountEvents, accountingSelfCheck } from './accounting.mjs';
import {
  clusterEnv,
  executionsFinishedBy,
  executionsStartedBy,
  n8nCommand,
  startMain,
  startWorker,
} from './n8n-cluster.mjs';
import { until } from './process-tools.mjs';
import { startPushObserver } from './push-observer.mjs';
import { executionCounts, readExecutions, rerunExecutions, savedStaticData } from './records.mjs';
import { installFromRegistry } from './registry-install.mjs';
import { missingServices, startPostgres, startRedis } from './services.mjs';
import { checkSharedLogin, sharedLoginWorkflow, sharedLoginWorkflowId } from './shared-login.mjs';
import { phaseFigures } from './stats.mjs';
import {
  batchCredentialFor,
  batchWorkflow,
  batchWorkflowId,
  credentialFor,
  queueWorkflow,
  workflowId,
} from './workflow.mjs';

const rate = 200;
// 500 in the suite: 2.5 s of 200/s is already 10 times both workers' pace, so the backlog, the
// Max Unfinished Executions wait and the catch-ups it causes all happen; 5,000 only takes longer
// (and every second of this cluster at full load slows the Node-RED suite beside it).
const phaseAEvents = Number(process.env.QUEUE_E2E_EVENTS ?? 500);
// A third in, the kills find the trigger's window of unfinished executions full either way (200/s
// fills it in half a second); what a longer stream adds is minutes of draining at the workers' pace.
const phaseBEvents = 300;
const phaseCEvents = 300;
/** Late publication kept short (the preset's 5-30 s would only make the test wait). */
const latePublication = { share: 0.02, minMs: 1000, maxMs: 4000 };
/** 'mild' camera latency is at most 1.5 s: after rate 0, nothing is published later than this. */
const settleMs = latePublication.maxMs + 1500 + 500;
const batchSize = Number(process.env.QUEUE_E2E_BATCH ?? 1);
/** Which phases run (all in `npm test`; `A` alone for figures, e.g. with a batch size). */
const phases = process.env.QUEUE_E2E_PHASES ?? 'ABC';

function log(message) {
  console.log(`\x1b[35m[e2e n8n queue]\x1b[0m ${message}`);
}

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

async function main() {
  const startedAll = Date.now();
  const checks = [];
  const check = (name, ok, detail) => {
    checks.push(printCheck(name, ok, detail));
  };
  const finish = () => {
    const passed = checks.filter((c) => c.ok).length;
    writePackageReport(checks, {
      part: 'queue-mode',
      file: join(import.meta.dirname, 'run-queue-mode.mjs'),
      suite: 'n8n queue-mode e2e',
    });
    console.log(
      `e2e queue mode: ${passed} passed, ${checks.length - passed} failed (${seconds(startedAll)})`,
    );
    process.exitCode = passed === checks.length ? 0 : 1;
  };

  // A wait left behind by a step that failed rejects later: a failed check, not a crash that
  // drops every check of the run from the summary (as in the main e2e).
  process.on('unhandledRejection', (error) =>
    check('no step leaves an error unhandled', false, String(error?.stack ?? error).slice(0, 2000)),
  );
  const missing = missingServices();
  if (missing) {
    log(`the queue-mode e2e cannot run: ${missing}`);
    check('Redis and PostgreSQL are installed for the queue-mode e2e', false, missing);
    finish();
    return;
  }
  const env = toolchainEnv();
  ensureN8nInstall({ env, log });

  /** The n8n processes by name, for QUEUE_E2E_LOGS (a folder to write their output to). */
  const processes = {};
  const keepLogs = () => {
    if (!process.env.QUEUE_E2E_LOGS) return;
    mkdirSync(process.env.QUEUE_E2E_LOGS, { recursive: true });
    for (const [name, handle] of Object.entries(processes)) {
      writeFileSync(join(process.env.QUEUE_E2E_LOGS, `${name}.log`), handle.output);
    }
  };
  const cleanup = [];
  // Ctrl-C or a CI timeout: stop what was started (n8n, Redis, PostgreSQL) before leaving.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, async () => {
      log(`${signal}: stopping the cluster`);
      keepLogs();
      for (const step of cleanup.reverse())
        await Promise.resolve()
          .then(step)
          .catch(() => {});
      process.exit(130);
    });
  }
  const workDir = mkdtempSync(join(tmpdir(), 'observation-n8n-queue-'));
  cleanup.push(() => rmSync(workDir, { recursive: true, force: true }));
  const { startSimulator } = await import(
    pathToFileURL(join(root, 'packages', 'simulator', 'dist', 'index.js')).href
  );
  const sim = await startSimulator({ port: 0, seed: 13, historySize: 300, realism: 'mild', latePublication });
  cleanup.push(() => sim.stop());
  // Phase B's Batch Size 100 workflow listens to a service of its own, so each workflow's events
  // are told apart by id and phases A and C run on the first alone.
  const simBatch = await startSimulator({
    port: 0,
    seed: 31,
    historySize: 300,
    realism: 'mild',
    latePublication,
  });
  cleanup.push(() => simBatch.stop());
  const figures = {};
  try {
    const setupStarted = Date.now();
    const [redis, postgres] = await Promise.all([startRedis(workDir), startPostgres()]);
    cleanup.push(
      () => redis.stop(),
      () => postgres.stop(),
    );
    const encryptionKey = randomBytes(24).toString('hex');
    const shared = clusterEnv({ redisPort: redis.port, postgres, encryptionKey });

    const folders = Object.fromEntries(
      ['main', 'worker-1', 'worker-2'].map((name) => [name, join(workDir, name)]),
    );
    // Each host's nodes folder gets the package with npm from a registry, as n8n documents for
    // workers (registry-install.mjs).
    const installStarted = Date.now();
    const fromRegistry = await installFromRegistry(join(workDir, 'package'), folders, env);
    check(
      `npm install of ${fromRegistry.version} from a registry in the nodes folder of the main and of each worker (${seconds(installStarted)}, release included)`,
      fromRegistry.version === '0.1.0' &&
        Object.values(fromRegistry.installed).every((i) => i.version === '0.1.0' && i.fromRegistry),
      JSON.stringify(fromRegistry),
    );
    const credentialsFile = join(workDir, 'credentials.json');
    writeFileSync(credentialsFile, JSON.stringify([credentialFor(sim), batchCredentialFor(simBatch)]));
    const workflowsDir = join(workDir, 'workflows');
    mkdirSync(workflowsDir);
    const options = batchSize > 1 ? { batchSize } : {};
    writeFileSync(join(workflowsDir, 'workflow.json'), JSON.stringify(queueWorkflow(options)));
    writeFileSync(join(workflowsDir, 'batch-workflow.json'), JSON.stringify(batchWorkflow()));
    writeFileSync(
      join(workflowsDir, 'shared-login.json'),
      JSON.stringify(sharedLoginWorkflow(credentialFor(sim))),
    );
    // A login that expires on the main while workers run its executions: on the batch service,
    // whose credential (and so whose one login) the Batch Size 100 trigger shares, since every
    // token of `sim` expiring would also cut the push observer's socket.
    const expirySink = await startLoginExpirySink();
    cleanup.push(() => expirySink.close());
    const expiryTask = addLoginExpiryTask(simBatch);
    writeFileSync(
      join(workflowsDir, 'login-expiry.json'),
      JSON.stringify(loginExpiryWorkflow(batchCredentialFor(simBatch), expirySink.url, expiryTask)),
    );
    const command = async (args) => {
      const result = await n8nCommand(args, folders.main, shared);
      // Named by command and workflow id, never by the run's temporary paths.
      const what = args[0] === 'publish:workflow' ? args.join(' ') : args[0];
      check(`n8n ${what} into PostgreSQL`, result.status === 0, result.output.slice(-1500));
      return result.status === 0;
    };
    // The first command migrates the database; the publishes touch one workflow each, so they
    // run side by side (each n8n CLI start costs seconds of CPU).
    if (!(await command(['import:credentials', `--input=${credentialsFile}`]))) return;
    if (!(await command(['import:workflow', '--separate', `--input=${workflowsDir}`]))) return;
    const published = await Promise.all(
      [workflowId, batchWorkflowId, sharedLoginWorkflowId, loginExpiryWorkflowId].map((id) =>
        command(['publish:workflow', `--id=${id}`]),
      ),
    );
    if (published.includes(false)) return;

    const [worker1, worker2] = await Promise.all([
      startWorker('worker-1', folders['worker-1'], shared),
      startWorker('worker-2', folders['worker-2'], shared),
    ]);
    cleanup.push(
      () => worker1.kill(),
      () => worker2.kill(),
    );
    Object.assign(processes, { 'worker-1': worker1, 'worker-2': worker2 });
    let mainProcess = await startMain(folders.main, shared);
    processes.main = mainProcess;
    cleanup.push(() => mainProcess.kill());
    const observer = await startPushObserver(sim);
    cleanup.push(() => observer.close());
    // The trigger's subscription plus the observer's; on the batch service, its trigger and the expiry check's.
    await until(
      () => sim.control.stats().openSockets >= 2 && simBatch.control.stats().openSockets >= 2,
      60_000,
      200,
      'the triggers subscribing',
    );
    log(`cluster up (Redis, PostgreSQL, main, 2 workers) in ${seconds(setupStarted)}`);
    figures.login = await checkSharedLogin({
      sim,
      main: mainProcess,
      workers: [worker1, worker2],
      postgres,
      check,
    });
    // The batch trigger's socket and the check's own; the check's executions run on the workers.
    figures.loginExpiry = await checkLoginExpiry({
      sim: simBatch,
      sink: expirySink,
      taskId: expiryTask,
      output: () => mainProcess.output,
      check,
      sockets: 2,
      label: 'queue mode: ',
    });

    /** Streams `count` events at `rate`/s from `source`; `during(emitted)` is called as they go. */
    const stream = async (count, during = async () => {}, source = sim) => {
      const base = source.control.stats().eventsEmitted;
      const firstId = source.control.stats().historySize + 1;
      source.control.setRate(rate);
      let done = false;
      const watcher = (async () => {
        while (!done) {
          await during(source.control.stats().eventsEmitted - base);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      await until(
        () => source.control.stats().eventsEmitted - base >= count,
        count * 20,
        20,
        'events emitted',
      );
      source.control.setRate(0);
      done = true;
      await watcher;
      return firstId;
    };

    /** The workflow's executions by status, as `drained` last read them (a wait's progress). */
    let counts = {};
    const drained = (workflow) => {
      counts = executionCounts(postgres, workflow);
      return !counts.new && !counts.running && !counts.waiting;
    };
    /** Ids in [firstId, lastId] that no execution (of any status) of `workflow` carries yet. */
    const missingIds = (firstId, lastId, workflow) => {
      const seen = new Set(readExecutions(postgres, workflow).flatMap((e) => e.eventIds));
      const missing = [];
      for (let id = firstId; id <= lastId; id++) if (!seen.has(id)) missing.push(id);
      return missing;
    };
    /**
     * After the stream: once nothing can be published any more (camera latency and late
     * publication are bounded), a sentinel event; the phase is complete when every event up to
     * it is in an execution and nothing of the workflow is queued or running. A second sentinel,
     * executed after that, shows nothing else (a repeat from a catch-up) was still on its way.
     */
    const settle = async (firstId, source = sim, workflow = workflowId) => {
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      await source.control.emit(1, { latenessMs: 0 });
      const lastId = source.control.stats().historySize;
      // Each wait ends after its time without progress (an execution created or finished): a
      // loaded runner got through phase B's backlog at 3.6 executions/s and ran out a fixed 300 s,
      // and its events still queued were then counted lost.
      // Read by each poll's drained(), which runs first: not queried a second time.
      const progress = () => JSON.stringify(counts);
      await until(
        () => drained(workflow) && missingIds(firstId, lastId, workflow).length === 0,
        300_000,
        1000,
        `every event executed (${workflow})`,
        progress,
      ).catch((error) => log(String(error)));
      await source.control.emit(1, { latenessMs: 0 });
      const closingId = source.control.stats().historySize;
      await until(
        () => drained(workflow) && missingIds(closingId, closingId, workflow).length === 0,
        60_000,
        500,
        'the closing sentinel',
        progress,
      ).catch((error) => log(String(error)));
      return { lastId, firstId };
    };

    // Phase accounting (accounting.mjs): ran / crashed / lost kept apart; the gate is lost = 0.
    const verify = accountEvents;
    check(
      'accounting: a made-up run where the trigger lost one event fails the gate; an event in a crashed execution is counted apart',
      accountingSelfCheck(),
    );
    const inPhase = (executions, firstId, lastId) =>
      executions.filter((e) => e.eventIds.some((id) => id >= firstId && id <= lastId));
    const list = (ids) =>
      `${ids.length}${ids.length ? ` (${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', …' : ''})` : ''}`;

    // Phase A: the steady stream.
    const aStarted = Date.now();
    const aFirst = await stream(phaseAEvents);
    const a = await settle(aFirst);
    const aExecutions = inPhase(readExecutions(postgres, workflowId), a.firstId, a.lastId);
    const aResult = verify(a.firstId, a.lastId, aExecutions);
    const stats = sim.control.stats();
    check(
      `A: ${aResult.expected} events at ${rate}/s over all tasks (${stats.eventsOutOfOrder} out of timestamp order, ${stats.lateEventsPublished} published late): none lost`,
      aResult.expected >= phaseAEvents && aResult.lost.length === 0 && aResult.ran === aResult.expected,
      `lost ${list(aResult.lost)}, crashed ${list(aResult.crashed)}, other ${aResult.unexecuted.slice(0, 5).join(', ')}`,
    );
    check(
      'A: none duplicated (each event in exactly one successful execution)',
      aResult.duplicated.length === 0,
      `duplicated ${list(aResult.duplicated)}`,
    );
    const aFailed = aExecutions.filter((e) => e.status !== 'success');
    check('A: every execution succeeded', aFailed.length === 0, JSON.stringify(aFailed.slice(0, 5)));
    // A worker writes an execution's end to PostgreSQL before its log line about it comes through
    // the pipe: the last executions of the phase may be in the database and not yet in a log.
    const inNoWorkerLog = () => {
      const finished = [executionsFinishedBy(worker1), executionsFinishedBy(worker2)];
      return aExecutions.filter((e) => !finished[0].has(e.id) && !finished[1].has(e.id));
    };
    await until(
      () => inNoWorkerLog().length === 0,
      15_000,
      200,
      'the workers logging the last executions',
    ).catch(() => undefined);
    const byWorker = [executionsFinishedBy(worker1), executionsFinishedBy(worker2)];
    const notByWorker = inNoWorkerLog();
    check(
      `A: the workers ran them (worker logs: ${aExecutions.filter((e) => byWorker[0].has(e.id)).length} by worker-1, ${aExecutions.filter((e) => byWorker[1].has(e.id)).length} by worker-2; mode "trigger")`,
      notByWorker.length === 0 &&
        aExecutions.some((e) => byWorker[0].has(e.id)) &&
        aExecutions.some((e) => byWorker[1].has(e.id)) &&
        aExecutions.every((e) => e.mode === 'trigger'),
      `not in a worker's log: ${list(notByWorker.map((e) => e.id))}`,
    );
    check(
      'A: the main process ran none of them itself',
      !/Worker (started|finished) execution/.test(mainProcess.output),
    );
    figures.A = {
      ...phaseFigures(
        aExecutions.filter((e) => e.status === 'success'),
        observer.pushedAt,
      ),
      ms: Date.now() - aStarted,
    };
    log(`phase A: ${JSON.stringify(figures.A)}`);

    if (!phases.includes('B')) return;
    // Phase B: main SIGKILLed mid-stream, restarted while the stream goes on. The kill waits
    // until the main has executions of the phase unfinished (rows in PostgreSQL, status new or
    // running): a third into a short stream, camera latency can still hold back every event the
    // main has seen (CI once killed it before it had made one, so its catch-up repeated nothing).
    const positionBefore = savedStaticData(postgres, workflowId);
    let killedAt = 0;
    let bRestartMs;
    let restart;
    let mainKill;
    const killMainWhileBusy = async (emitted) => {
      await until(
        () => {
          const counts = executionCounts(postgres, workflowId);
          return (counts.new ?? 0) + (counts.running ?? 0) > 0;
        },
        60_000,
        50,
        'the main holding unfinished executions of phase B',
      );
      killedAt = Date.now();
      await mainProcess.kill('SIGKILL');
      log(`main SIGKILLed after ${emitted}+ events of phase B; restarting it`);
      restart = startMain(folders.main, shared).then((started) => {
        processes['main-before-kill'] = mainProcess;
        mainProcess = started;
        processes.main = started;
        bRestartMs = Date.now() - killedAt;
      });
    };
    // The Batch Size 100 workflow's stream runs through the same kill.
    const batchStream = stream(phaseBEvents, undefined, simBatch);
    const bFirst = await stream(phaseBEvents, async (emitted) => {
      if (!mainKill && emitted >= phaseBEvents / 3) mainKill = killMainWhileBusy(emitted);
    });
    await mainKill;
    const batchFirst = await batchStream;
    await restart;
    await until(
      () => sim.control.stats().openSockets >= 2 && simBatch.control.stats().openSockets >= 2,
      60_000,
      200,
      'the restarted triggers subscribing',
    );
    const [b, bBatch] = await Promise.all([settle(bFirst), settle(batchFirst, simBatch, batchWorkflowId)]);
    const bExecutions = inPhase(readExecutions(postgres, workflowId), b.firstId, b.lastId);
    const bResult = verify(b.firstId, b.lastId, bExecutions);
    const batchExecutions = inPhase(readExecutions(postgres, batchWorkflowId), bBatch.firstId, bBatch.lastId);
    const batchResult = verify(bBatch.firstId, bBatch.lastId, batchExecutions);
    // An execution the killed main had written but not yet queued is marked `crashed` by the
    // restarted main (n8n's queue recovery) and never runs; its key still refuses the event. The
    // event is in that execution's record (n8n's Retry runs it): counted as crashed, apart from
    // `lost` (in no execution: the trigger lost it), which must be 0.
    check(
      `B: main SIGKILLed mid-stream and restarted: of ${bResult.expected} events ${bResult.ran} ran once, ${bResult.crashed.length} are held in executions n8n marked crashed (written, not yet queued when main died), ${bResult.lost.length} lost by the trigger`,
      killedAt > 0 && bResult.lost.length === 0 && bResult.repeated.length === 0,
      `lost (in no execution): ${list(bResult.lost)}; crashed: ${list(bResult.crashed)}; other: ${bResult.unexecuted.slice(0, 5).join(', ')}`,
    );
    check('B: none duplicated', bResult.duplicated.length === 0, `duplicated ${list(bResult.duplicated)}`);
    check(
      'B: the position was in the workflow static data n8n saved',
      JSON.stringify(positionBefore ?? {}).includes('observation-position'),
      JSON.stringify(positionBefore).slice(0, 300),
    );
    check(
      'B: no event in a second execution of any status',
      bResult.repeated.length === 0,
      `repeated ${list(bResult.repeated)}`,
    );
    const refused = (mainProcess.output.match(/duplicate deduplication key/g) ?? []).length;
    check(
      `B: the restarted main caught up from the saved position and n8n refused ${refused} event(s) it had already executed (deduplication key)`,
      refused > 0,
      'no refusal logged: the catch-up repeated nothing, so the key was not exercised',
    );
    // Batch Size 100: the README promises at least once (a batch regrouped by the catch-up after
    // the restart is a new key, so n8n runs it), never a loss.
    const batchSizes = batchExecutions.map((e) => e.eventIds.length);
    check(
      `B at Batch Size 100 (a second workflow through the same kill): of ${batchResult.expected} events in ${batchExecutions.length} executions (${Math.min(...batchSizes)}-${Math.max(...batchSizes)} events each), ${batchResult.ran} ran once, ${batchResult.duplicated.length} ran twice (a regrouped batch), ${batchResult.crashed.length} are held in executions n8n marked crashed, ${batchResult.lost.length} lost by the trigger`,
      killedAt > 0 &&
        batchResult.lost.length === 0 &&
        batchResult.unexecuted.length === 0 &&
        Math.max(...batchSizes) > 1 &&
        Math.max(...batchSizes) <= 100,
      `lost (in no execution): ${list(batchResult.lost)}; crashed: ${list(batchResult.crashed)}; other: ${batchResult.unexecuted.slice(0, 5).join(', ')}`,
    );
    figures.B100 = {
      executions: batchExecutions.length,
      ran: batchResult.ran,
      duplicated: batchResult.duplicated.length,
      crashed: batchResult.crashed.length,
      lost: batchResult.lost.length,
    };
    figures.B = {
      batchSize,
      ran: bResult.ran,
      crashed: bResult.crashed.length,
      lost: bResult.lost.length,
      duplicated: bResult.duplicated.length,
      restartMs: bRestartMs,
      refused,
    };

    if (!phases.includes('C')) return;
    // Phase C: a worker SIGKILLed mid-stream, at a moment its log says it holds an execution:
    // a third into the stream the workers may not have taken a job of it yet (CI once killed
    // one that held none), so the kill waits for one, while the stream and the backlog go on.
    let victimHeld = new Set();
    let victimFinished = new Set();
    let victimKill;
    const killWhileHolding = async (emitted) => {
      const heldBeside = (finished) => [...executionsStartedBy(worker1)].filter((id) => !finished.has(id));
      await until(
        () => heldBeside(executionsFinishedBy(worker1)).length > 0,
        60_000,
        20,
        'worker-1 holding an execution',
      );
      const finished = executionsFinishedBy(worker1);
      await worker1.kill('SIGKILL');
      victimFinished = finished;
      victimHeld = new Set(heldBeside(finished));
      log(
        `worker-1 SIGKILLed after ${emitted}+ events of phase C, holding executions ${[...victimHeld].join(', ') || 'none'}`,
      );
    };
    // The main was not restarted in this phase: an execution handed over again since is a rerun of
    // one the killed worker lost.
    const cStartedAt = Date.now();
    const cFirst = await stream(phaseCEvents, async (emitted) => {
      if (!victimKill && emitted >= phaseCEvents / 3 && worker1.alive) victimKill = killWhileHolding(emitted);
    });
    await victimKill;
    const c = await settle(cFirst);
    const allExecutions = readExecutions(postgres, workflowId);
    const cExecutions = inPhase(allExecutions, c.firstId, c.lastId);
    const cResult = verify(c.firstId, c.lastId, cExecutions);
    const held = allExecutions.filter((e) => victimHeld.has(e.id));
    const reran = [...victimHeld].filter((id) => executionsStartedBy(worker2).has(id));
    const heldStatus = {};
    for (const execution of held) heldStatus[execution.status] = (heldStatus[execution.status] ?? 0) + 1;
    const reruns = rerunExecutions(postgres, workflowId, cStartedAt);
    figures.C = {
      heldByKilledWorker: victimHeld.size,
      heldStatusAfter: heldStatus,
      heldWithEventData: held.filter((e) => e.eventIds.length > 0).length,
      jobRetriedByN8n: reran.length,
      failedByN8n: allExecutions.filter((e) => e.status === 'error').length,
      rerunByTrigger: reruns.length,
    };
    log(`phase C (worker kill): ${JSON.stringify(figures.C)}`);
    check(
      'C: a worker was SIGKILLed while it held executions',
      victimHeld.size > 0,
      `it held none (finished ${victimFinished.size})`,
    );
    // n8n's records: the executions it failed (their items dropped), whoever held them.
    const failedByN8n = allExecutions.filter((e) => e.status === 'error');
    check(
      `C: n8n did not retry the killed worker's jobs: it failed ${failedByN8n.length} execution(s) ('error', items dropped); none was run by the other worker`,
      failedByN8n.length > 0 && failedByN8n.every((e) => e.eventIds.length === 0) && reran.length === 0,
      JSON.stringify({ held: held.map((e) => ({ id: e.id, status: e.status })), reran }).slice(0, 600),
    );
    check(
      `C: the trigger (Re-Run Executions Lost with a Worker) started each of them again: ${reruns.length} rerun(s), all successful`,
      reruns.length === failedByN8n.length && reruns.every((e) => e.status === 'success'),
      JSON.stringify(reruns).slice(0, 400),
    );
    check(
      `C: none of ${cResult.expected} events without a successful execution, none in two`,
      cResult.ran === cResult.expected && cResult.duplicated.length === 0,
      `lost ${list(cResult.lost)}, crashed ${list(cResult.crashed)}, other ${cResult.unexecuted.slice(0, 5).join(', ')}, duplicated ${list(cResult.duplicated)}`,
    );
  } catch (error) {
    check('the queue-mode run completes', false, String(error?.stack ?? error).slice(0, 3000));
  } finally {
    for (const step of cleanup.reverse()) {
      try {
        await step();
      } catch (error) {
        log(`cleanup: ${error}`);
      }
    }
    log(`figures: ${JSON.stringify(figures)}`);
    keepLogs();
    finish();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
