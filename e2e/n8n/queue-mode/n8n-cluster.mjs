// n8n in queue mode: one main (holds the trigger, puts executions on the Redis queue) and
// workers (`n8n worker`, run them), all on one PostgreSQL database and one encryption key. Each
// process has its own user folder with the packed package installed (as n8n's community-nodes
// screen would on each host), its own task-broker port, and the workers a health port.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import {
  n8nBin,
  nodeBin,
  toolchainEnv,
  withCompileCache,
  withoutTaskRunner,
  withoutUnjudgedModules,
} from '../n8n-install.mjs';
import { freePort, until } from './process-tools.mjs';

/**
 * Bull's stalled-job check, shortened from n8n's 30 s defaults (documented settings
 * QUEUE_WORKER_LOCK_DURATION, QUEUE_WORKER_LOCK_RENEW_TIME, QUEUE_WORKER_STALLED_INTERVAL) so a
 * killed worker's jobs are noticed within seconds; the README explains what they do.
 */
export const stalledSettings = {
  QUEUE_WORKER_LOCK_DURATION: '5000',
  QUEUE_WORKER_LOCK_RENEW_TIME: '2000',
  QUEUE_WORKER_STALLED_INTERVAL: '3000',
};

/**
 * The environment every process of the cluster shares (it serves no editor, and its workflows
 * have no Code node: no task runner, see withoutTaskRunner).
 */
export function clusterEnv({ redisPort, postgres, encryptionKey }) {
  return withoutUnjudgedModules(
    withoutTaskRunner(
      withCompileCache({
        ...toolchainEnv(),
        EXECUTIONS_MODE: 'queue',
        QUEUE_BULL_REDIS_HOST: '127.0.0.1',
        QUEUE_BULL_REDIS_PORT: String(redisPort),
        DB_TYPE: 'postgresdb',
        DB_POSTGRESDB_HOST: '127.0.0.1',
        DB_POSTGRESDB_PORT: String(postgres.port),
        DB_POSTGRESDB_DATABASE: postgres.database,
        DB_POSTGRESDB_USER: postgres.user,
        DB_POSTGRESDB_PASSWORD: '',
        // At 200 events/s with one execution per event this machine runs ~25 executions/s, so the
        // main's queries queue up: past n8n's 20 s connection timeout it failed the executions
        // ("timeout exceeded when trying to connect", ~1,000 of 5,000 with the default pool of 2,
        // ~2,000 with 10). Queries wait instead (10 min); the README says so.
        DB_POSTGRESDB_POOL_SIZE: '10',
        DB_POSTGRESDB_CONNECTION_TIMEOUT: '600000',
        N8N_ENCRYPTION_KEY: encryptionKey,
        N8N_DIAGNOSTICS_ENABLED: 'false',
        N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
        N8N_TEMPLATES_ENABLED: 'false',
        N8N_PERSONALIZATION_ENABLED: 'false',
        N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
        N8N_LISTEN_ADDRESS: '127.0.0.1',
        // Workers log "Worker started/finished execution <id>" at info: the evidence of who ran what.
        N8N_LOG_LEVEL: 'info',
        N8N_LOG_OUTPUT: 'console',
        N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
        ...stalledSettings,
      }),
    ),
  );
}

/** Runs an n8n CLI command (import, publish) to completion. */
export async function n8nCommand(args, userFolder, env) {
  const child = spawn(nodeBin, [n8nBin, ...args], {
    cwd: userFolder,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      N8N_USER_FOLDER: userFolder,
      N8N_LOG_LEVEL: 'warn',
      N8N_RUNNERS_BROKER_PORT: String(await freePort()),
    },
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    output += chunk;
  });
  const status = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { status, output };
}

/**
 * A long-running n8n process (main or worker): its output is kept (for the worker logs and for
 * failures), `kill(signal)` ends it, `exited` resolves when it has.
 */
function startProcess(name, args, userFolder, env) {
  mkdirSync(userFolder, { recursive: true });
  const child = spawn(nodeBin, [n8nBin, ...args], {
    cwd: userFolder,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, N8N_USER_FOLDER: userFolder },
  });
  const handle = {
    name,
    child,
    output: '',
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
    async kill(signal = 'SIGTERM') {
      if (!handle.alive) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await handle.exited;
      clearTimeout(timer);
    },
  };
  const keep = (chunk) => {
    handle.output += chunk;
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  return handle;
}

async function healthy(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** The main process (`n8n start` in queue mode); resolves once its readiness check answers (fully started). */
export async function startMain(userFolder, env, { timeoutMs = 120_000 } = {}) {
  const port = await freePort();
  const main = startProcess('main', ['start'], userFolder, {
    ...env,
    N8N_PORT: String(port),
    N8N_RUNNERS_BROKER_PORT: String(await freePort()),
  });
  main.port = port;
  await until(
    async () => !main.alive || (await healthy(`http://127.0.0.1:${port}/healthz/readiness`)),
    timeoutMs,
    100,
    'n8n main readiness check',
  ).catch((error) => {
    throw new Error(`${error.message}; main output:\n${main.output.slice(-3000)}`);
  });
  if (!main.alive) throw new Error(`n8n main exited at start:\n${main.output.slice(-3000)}`);
  return main;
}

/** An `n8n worker --concurrency=N`; resolves once its readiness check (DB and Redis up) answers. */
export async function startWorker(name, userFolder, env, { concurrency = 5, timeoutMs = 120_000 } = {}) {
  const healthPort = await freePort();
  const worker = startProcess(name, ['worker', `--concurrency=${concurrency}`], userFolder, {
    ...env,
    QUEUE_HEALTH_CHECK_ACTIVE: 'true',
    QUEUE_HEALTH_CHECK_PORT: String(healthPort),
    N8N_RUNNERS_BROKER_PORT: String(await freePort()),
  });
  await until(
    async () => !worker.alive || (await healthy(`http://127.0.0.1:${healthPort}/healthz/readiness`)),
    timeoutMs,
    100,
    `n8n ${name} readiness check`,
  ).catch((error) => {
    throw new Error(`${error.message}; ${name} output:\n${worker.output.slice(-3000)}`);
  });
  if (!worker.alive) throw new Error(`n8n ${name} exited at start:\n${worker.output.slice(-3000)}`);
  return worker;
}

/** Execution ids a worker's log says it finished ("Worker finished execution <id>"). */
export function executionsFinishedBy(worker) {
  return new Set([...worker.output.matchAll(/Worker finished execution (\d+)/g)].map((match) => match[1]));
}

/** Execution ids a worker's log says it started. */
export function executionsStartedBy(worker) {
  return new Set([...worker.output.matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]));
}
