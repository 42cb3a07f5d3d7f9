#!/usr/bin/env node
// Crash restarts of a real n8n: the PACKED package installed into n8n 2.41.0 (this folder's own
// install), one workflow (the Observation Trigger into a slow sink) published, and n8n SIGKILLed
// at random points while events stream in, started again each time, with a few graceful stops
// among the kills (crash-restart.mjs). A task of its own (the n8n package's `test:e2e-crash`),
// on its own user folder, simulator and sink, so `npm test` runs it beside the rest of the real
// n8n e2e (run-e2e.mjs) instead of after it: it is the longest real-n8n check (23 starts of n8n,
// in two loops side by side).
// Prints its figures and "N passed, N failed" and reports its checks as
// packages/n8n-nodes/.vitest-report.e2e-crash.json.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  activationPending,
  crashAccount,
  crashExecutions,
  crashRestarts,
  crashStatuses,
  crashWorkflow,
  crashWorkflowId,
  repeatsByStop,
  savedPosition,
  startSink,
  whereSaved,
} from './crash-restart.mjs';
import { checkList, headlessN8nEnv, n8n, seconds } from './n8n-cli.mjs';
import {
  e2eDir,
  ensureN8nInstall,
  installIntoN8n,
  n8nBin,
  nodeBin,
  packTarball,
  root,
  toolchainEnv,
  withOnlyNodes,
  withoutTaskRunner,
} from './n8n-install.mjs';
import { startN8nServer } from './n8n-server.mjs';
import { reportChecks } from './package-report.mjs';
import { freePort } from './queue-mode/process-tools.mjs';
import { writeSimulatorCredential } from './simulator-credential.mjs';

function log(message) {
  console.log(`\x1b[35m[e2e n8n crash]\x1b[0m ${message}`);
}

/** One crash loop's part of the figures: `kills` kills and `stops` graceful stops. */
function loopParts(kills, stops, loops) {
  return Array.from({ length: loops }, (_, k) => ({
    name: loops === 1 ? 'crash restarts' : `crash restarts, loop ${k + 1} of ${loops}`,
    kills: Math.floor(kills / loops) + (k < kills % loops ? 1 : 0),
    stops: Math.floor(stops / loops) + (k < stops % loops ? 1 : 0),
  }));
}

async function main() {
  const env = toolchainEnv();
  const install = ensureN8nInstall({ env, log });
  if (!install.installed) log('n8n install is cached');
  const workDir = mkdtempSync(join(tmpdir(), 'observation-n8n-crash-'));
  const { checks, check } = checkList();
  const { startSimulator, seededRandom } = await import(
    pathToFileURL(join(root, 'packages', 'simulator', 'dist', 'index.js')).href
  );
  // n8n SIGKILLed at random points under a steady stream, started again each time, with a few
  // graceful stops (SIGTERM) among the kills. Each restart costs n8n's start
  // (6-9 s here, more after a kill in a catch-up burst, while it recovers the unfinished
  // executions), so the stream is 2 events/s: each restart still leaves a backlog the next
  // start catches up in a burst (what a kill should land in), without minutes of draining it at
  // n8n's pace. The sink answers each post 0.3-1.2 s late, so every stop finds an execution in
  // flight. N8N_CRASH_KILLS / N8N_CRASH_STOPS / N8N_CRASH_RATE change the figures.
  const kills = Number(process.env.N8N_CRASH_KILLS ?? 20);
  const gracefulStops = Number(process.env.N8N_CRASH_STOPS ?? 3);
  const crashRate = Number(process.env.N8N_CRASH_RATE ?? 2);
  // The kills and stops are shared among loops side by side, each an n8n of its own (user
  // folder, simulator, sink): a loop is a chain of n8n starts, each one CPU-bound process, and
  // beside the rest of `npm test` one start got a fifth of a core (8 CPU-s in 45 s, CI of
  // 85b0fd9), so two chains finish in about half the time for the same starts (N8N_CRASH_LOOPS).
  const loops = Math.max(1, Number(process.env.N8N_CRASH_LOOPS ?? 2));
  // Events published and not yet at the sink, at most (then the stream waits for n8n): the
  // backlog a restart of 10 s leaves, however slow the machine (N8N_CRASH_BACKLOG).
  const backlog = Number(process.env.N8N_CRASH_BACKLOG ?? crashRate * 10);
  // The trigger's "Unfinished Executions After a Restart": `runAgain` (default) or `retryByHand`.
  const afterRestart = process.env.N8N_CRASH_AFTER_RESTART ?? 'runAgain';
  // N8N_CRASH_CODE=1 puts a Code node saving static data between the trigger and the sink (by
  // hand only: see the n8n README's "Alerts" for what it measured and why it is not in npm test).
  const crashCode = process.env.N8N_CRASH_CODE === '1';
  const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
  const crashStarted = Date.now();
  try {
    const tarball = packTarball(join(workDir, 'pack'), { env });
    log(
      `crash restarts: seed ${seed} (CRASH_SEED=${seed} repeats the kill points), ${loops} loop(s) side by side`,
    );
    // What every loop shares; each has its own folder, seeds and share of the kills.
    const shared = {
      tarball,
      rate: crashRate,
      backlog,
      afterRestart,
      crashCode,
      env,
      startSimulator,
      seededRandom,
      check,
    };
    await Promise.all(
      loopParts(kills, gracefulStops, loops).map((part, k) =>
        crashLoop({
          ...shared,
          ...part,
          dir: join(workDir, `loop-${k + 1}`),
          seed: seed + 1_000 * k,
          simSeed: 3 + k,
        }),
      ),
    );
  } catch (error) {
    check('crash restarts of n8n complete', false, String(error?.stack ?? error).slice(0, 2000));
  } finally {
    log(`crash restarts: ${seconds(crashStarted)}`);
    rmSync(workDir, { recursive: true, force: true });
  }
  reportChecks(checks, {
    part: 'e2e-crash',
    file: join(e2eDir, 'run-crash.mjs'),
    suite: 'real n8n crash restarts',
    label: 'e2e crash restarts',
  });
}

/** One chain of n8n starts, stops and kills on its own user folder, simulator and sink, and its checks. */
async function crashLoop({
  name,
  kills,
  stops: gracefulStops,
  dir,
  tarball,
  seed,
  simSeed,
  rate: crashRate,
  backlog,
  afterRestart,
  crashCode,
  env,
  startSimulator,
  seededRandom,
  check,
}) {
  const say = (message) => log(message.replace(/^crash restarts/, name));
  const userFolder = join(dir, 'user');
  mkdirSync(userFolder, { recursive: true });
  const sim = await startSimulator({ port: 0, seed: simSeed, historySize: 300 });
  const sink = await startSink({ answerMs: { min: 300, max: 1_200 }, random: seededRandom(seed + 1) });
  try {
    const installed = installIntoN8n(tarball, userFolder, { env });
    if (installed.runtimeDependencies !== 0)
      throw new Error('the packed tarball brought runtime dependencies');
    const encryptionKey = randomBytes(24).toString('hex');
    const { credential, file: credentialsFile } = writeSimulatorCredential(sim, dir);
    const workflowsDir = join(dir, 'workflows');
    mkdirSync(workflowsDir);
    writeFileSync(
      join(workflowsDir, 'crash-restart.workflow.json'),
      JSON.stringify(
        crashWorkflow(
          credential,
          sink.url,
          afterRestart === 'runAgain' ? {} : { afterRestart },
          crashCode
            ? "const data = $getWorkflowStaticData('global'); data.n = (data.n ?? 0) + 1; return $input.all();"
            : undefined,
        ),
      ),
    );
    /**
     * n8n on this user folder, headless, as every start of the loop; with no task runner unless
     * the workflow has its Code node.
     */
    const startHeadless = async () => {
      const env = await headlessN8nEnv(userFolder, encryptionKey);
      return startN8nServer({
        nodeBin,
        n8nBin,
        // The crash workflow's nodes: the trigger, its Code node (with the code variant), the POST.
        env: withOnlyNodes(crashCode ? env : withoutTaskRunner(env), ['httpRequest', 'code']),
        port: await freePort(),
      });
    };
    try {
      for (const args of [
        ['import:credentials', `--input=${credentialsFile}`],
        ['import:workflow', '--separate', `--input=${workflowsDir}`],
        ['publish:workflow', `--id=${crashWorkflowId}`],
      ]) {
        const done = await n8n(args, userFolder, encryptionKey);
        if (done.status !== 0) throw new Error(`n8n ${args[0]}: ${done.stderr.slice(-600)}`);
      }
      const { emitted, timeOf, cycles, triggerLog } = await crashRestarts({
        sim,
        sink,
        kills,
        stops: gracefulStops,
        runsAgain: afterRestart === 'runAgain',
        random: seededRandom(seed),
        rate: crashRate,
        backlog,
        log: say,
        records: () => crashExecutions(userFolder),
        statuses: () => crashStatuses(userFolder),
        saved: () => savedPosition(userFolder),
        activating: () => activationPending(userFolder),
        start: startHeadless,
      });
      const executions = crashExecutions(userFolder);
      const account = crashAccount(emitted, sink.posts, executions);
      const repeats = repeatsByStop(cycles, sink.posts);
      const figures = `of ${emitted.length} events ${account.ranOnce} ran once, ${account.ranMore} ran more than once (at most ${account.maxRuns} times), ${account.waiting.length} wait in crashed executions for a Retry, ${account.lost.length} lost (${JSON.stringify(account.lostHow)})`;
      say(
        `crash restarts (${afterRestart}, ${kills} kills and ${gracefulStops} graceful stops at ${crashRate} events/s): ${figures}; executions started again: ${account.again.executions} (${account.again.succeeded} succeeded)`,
      );
      say(
        `crash restarts, per stop (in flight at the sink / left unfinished / on the saved list, finished / repeated): ${repeats.perStop.map((s) => `${s.kind === 'kill' ? 'K' : 'T'}${s.cycle} ${s.open}/${s.unfinished}/${s.finishedLate}/${s.repeated}`).join(', ')}`,
      );
      // n8n saves a workflow's static data whole, from the trigger and from executions, last
      // writer wins: a stop whose saved position is older than the one before it read a stale copy.
      const wentBack = cycles.flatMap((stop, index) => {
        const before = cycles[index - 1]?.position?.savedAt;
        const saved = stop.position?.savedAt;
        return before !== undefined && (saved ?? '') < before
          ? [`stop ${stop.cycle} (saved ${saved}, the stop before ${before})`]
          : [];
      });
      if (wentBack.length > 0)
        say(`crash restarts: the saved position went back in time at ${wentBack.join(', ')}`);
      const outside = new Set([...repeats.twiceInOneRun, ...repeats.unexplained]);
      if (outside.size > 0) {
        const keyOf = new Map(executions.map((e) => [e.id, e.key]));
        say(
          `crash restarts: what the trigger logged:\n${triggerLog.slice(-60).join('\n')}\nposts of the events repeated outside the bound: ${JSON.stringify(
            sink.posts
              .filter((post) => outside.has(post.id))
              .map((post) => ({
                ...post.body,
                run: post.run,
                key: keyOf.get(String(post.body.execution)),
              })),
          )}\nwhat each stop saved of them (its trigger's position as n8n last wrote it):\n${[...outside]
            .flatMap((id) => {
              const time = timeOf.get(id);
              return cycles.map(
                (stop) => `${id} (${time}) at stop ${stop.cycle}: ${whereSaved(stop.position, id)}`,
              );
            })
            .join('\n')}`,
        );
      }
      const setting = `n8n SIGKILLed ${kills} times and stopped gracefully ${gracefulStops} times under ${crashRate} events/s (sqlite, "Unfinished Executions After a Restart": ${afterRestart})`;
      const killed = repeats.perStop.filter((s) => s.kind === 'kill');
      check(
        `${name}: every stop hit work in flight (an execution waiting for the sink; each kill left an execution n8n had not finished)`,
        repeats.perStop.every((s) => s.open > 0) && killed.every((s) => s.unfinished > 0),
        JSON.stringify(repeats.perStop),
      );
      if (afterRestart === 'runAgain') {
        check(
          `${name}: ${setting}: ${figures}; none lost, none waiting for a Retry`,
          account.lost.length === 0 && account.waiting.length === 0 && emitted.length > kills * 10,
          `lost: ${account.lost.slice(0, 20).join(', ')}; waiting: ${account.waiting.slice(0, 20).join(', ')}`,
        );
        // The stated bound, per stop: an event runs again only after a stop that left it on the
        // trigger's saved record (unfinished at a kill, or finished after the last emit), and
        // once per such stop; a graceful stop leaves only the second kind (the README's limit).
        const gracefulLeft = repeats.perStop.filter((s) => s.kind === 'graceful');
        check(
          `${name}: each repeat follows a stop that left its event on the saved record, once per stop (${account.ranMore} events ran more than once, at most ${account.maxRuns} times; graceful stops repeated ${gracefulLeft.map((s) => s.repeated).join(', ') || 'none'}, each within the saved list)`,
          repeats.unexplained.length === 0 &&
            repeats.twiceInOneRun.length === 0 &&
            account.maxRuns <= kills + gracefulStops + 1,
          `unexplained repeats: ${repeats.unexplained.slice(0, 20).join(', ')}; twice in one run: ${repeats.twiceInOneRun.slice(0, 20).join(', ')}`,
        );
        check(
          `${name}: every event of a crashed execution has a successful execution, and each of the ${account.again.succeeded} executions the trigger started again carries its events`,
          account.crashedNotRetried.length === 0 && account.again.withoutTheirEvents.length === 0,
          `crashed, never succeeded: ${account.crashedNotRetried.slice(0, 20).join(', ')}; started again without their events: ${account.again.withoutTheirEvents.slice(0, 20).join(', ')}`,
        );
      } else {
        check(
          `${name}: ${setting}: ${figures}; no event in no execution`,
          !account.lostHow['in no execution'] && emitted.length > kills * 10,
          `lost: ${account.lost.slice(0, 20).join(', ')}`,
        );
        check(
          `${name}: no event ran twice (n8n refused the caught-up repeats by their deduplication key): longest repeated span ${account.longestRepeatSpanMs} ms`,
          account.ranMore === 0 && account.again.executions === 0,
        );
      }
    } catch (error) {
      check(`${name} complete`, false, String(error?.stack ?? error).slice(0, 2000));
    }
  } finally {
    await sink.close();
    await sim.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
