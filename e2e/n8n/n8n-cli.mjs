// What the real-n8n e2e scripts share: n8n's environment for this folder's install (compile
// cache, no telemetry, sqlite), n8n's CLI run without blocking the caller (the simulator that
// answers n8n lives in the caller's event loop), waits that end on evidence, and the list of
// checks each script reports (package-report.mjs). run-e2e.mjs (the CLI, editor, restarts and
// static data), run-crash.mjs (SIGKILLs under a stream) and run-community.mjs (n8n's installer)
// each run as a task of their own, side by side in `npm test`.
import { spawn } from 'node:child_process';
import { n8nBin, nodeBin, toolchainEnv, withCompileCache, withoutUnjudgedModules } from './n8n-install.mjs';
import { freePort } from './queue-mode/process-tools.mjs';

const env = toolchainEnv();

/**
 * A check's text without the session secrets a failed request quotes: Playwright's error lists
 * the request's headers, the owner's `n8n-auth` cookie among them (seen in a CI log).
 */
function withoutSecrets(text) {
  if (typeof text !== 'string') return text;
  return text
    .replace(/(n8n-auth=)[^;\s"'\\]+/gi, '$1[redacted]')
    .replace(/(authorization:\s*(?:bearer\s+)?)[^\s"'\\]+/gi, '$1[redacted]');
}

/** Prints one check, ✓ or ✗ with its detail, and returns it, both without session secrets. */
export function printCheck(name, ok, detail) {
  const shown = { name: withoutSecrets(name), ok: Boolean(ok), detail: withoutSecrets(detail) };
  console.log(
    `  ${ok ? '\x1b[32m✓\x1b[0m' : '\x1b[31m✗\x1b[0m'} ${shown.name}${ok || !shown.detail ? '' : `: ${shown.detail}`}`,
  );
  return shown;
}

/**
 * The checks of one script: `check(name, ok, detail)` prints and records one; `checks` is the
 * list for the report. A wait left behind by a step that failed (a browser event never fired)
 * rejects later: reported as a failed check, not a crash that drops every check of the run from
 * the summary.
 */
export function checkList() {
  const checks = [];
  const check = (name, ok, detail) => {
    checks.push(printCheck(name, ok, detail));
  };
  process.on('unhandledRejection', (error) =>
    check('no step leaves an error unhandled', false, String(error?.stack ?? error).slice(0, 2000)),
  );
  return { checks, check };
}

export function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/**
 * Polls `condition` (sync or async) until it holds: every 100 ms (the simulator's counters cost
 * nothing to read), or every `everyMs` for a condition that asks n8n's REST API.
 */
export async function until(condition, timeoutMs, everyMs = 100) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Runs the n8n CLI without blocking this process: the simulator answering n8n lives in this
 * process's event loop.
 */
export function n8nEnv(userFolder, encryptionKey, logLevel, brokerPort) {
  return withCompileCache({
    ...env,
    N8N_USER_FOLDER: userFolder,
    N8N_ENCRYPTION_KEY: encryptionKey,
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    // The CLI prints its results through the logger at info level.
    N8N_LOG_LEVEL: logLevel,
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
    DB_TYPE: 'sqlite',
    N8N_RUNNERS_BROKER_PORT: String(brokerPort),
  });
}

/**
 * `n8n start` for the steps after the editor session (the restart, the crash restarts), which
 * open no editor: n8n runs headless (`N8N_DISABLE_UI`, as a production n8n that serves only its
 * REST API and triggers may), which spares each start the editor's files and node type lists, a
 * quarter to a third of the start's CPU (measured: 6.1 against 8.6 CPU-s, loaded machine). The
 * triggers, executions, database and REST API are the same. The backend modules no check touches
 * are left out too (`withoutUnjudgedModules`).
 */
export async function headlessN8nEnv(userFolder, encryptionKey) {
  return withoutUnjudgedModules({
    ...n8nEnv(userFolder, encryptionKey, 'warn', await freePort()),
    N8N_DISABLE_UI: 'true',
  });
}

export async function n8n(args, userFolder, encryptionKey, logLevel = 'warn') {
  const child = spawn(nodeBin, [n8nBin, ...args], {
    cwd: userFolder,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: n8nEnv(userFolder, encryptionKey, logLevel, await freePort()),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
