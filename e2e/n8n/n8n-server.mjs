// `n8n start` on a free port for the e2e: spawned, waited for until its REST routes answer, stopped
// with SIGTERM (n8n's graceful shutdown). Used by the editor screenshots and by the restart that
// checks the polling Task Trigger.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The owner account the e2e sets up in a fresh n8n (and logs in with after a restart). */
export const owner = {
  email: 'owner@example.com',
  firstName: 'Demo',
  lastName: 'Owner',
  password: 'Owner-pass-2024!',
};

async function waitForHttp(url, child, timeoutMs) {
  const started = Date.now();
  // The bound counts from n8n's last sign of work: a first start's migrations on a loaded runner
  // took over 120 s of wall time while n8n kept working (CI: "n8n did not answer"), so a slower
  // start waits on, and an n8n that stops using CPU still fails after `timeoutMs`, or after five
  // times that in all.
  let busyAt = started;
  let cpu = cpuSecondsOfTree(child.pid);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`n8n exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    const now = Date.now();
    const cpuNow = cpuSecondsOfTree(child.pid);
    if (cpuNow !== undefined && cpu !== undefined && cpuNow > cpu + 0.05) busyAt = now;
    cpu = cpuNow;
    if (now - busyAt > timeoutMs || now - started > 5 * timeoutMs) {
      throw new Error(
        `n8n did not answer ${url} within ${now - started} ms (${Math.round((now - busyAt) / 1000)} s without using CPU)`,
      );
    }
    // Every 100 ms: a check costs n8n well under a millisecond, and the caller goes on as soon as
    // n8n is ready instead of up to half a second later (at warn level n8n prints nothing then).
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * CPU seconds (user + system) a process and its children have used so far, from Linux's /proc
 * (n8n's task runner is its child); undefined where /proc is not there.
 */
function cpuSecondsOfTree(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    let seconds = (Number(fields[11]) + Number(fields[12])) / 100;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const child of children ? children.split(' ') : []) seconds += cpuSecondsOfTree(child) ?? 0;
    }
    return seconds;
  } catch {
    return undefined;
  }
}

/**
 * @param {{ nodeBin: string, n8nBin: string, env: Record<string, string>, port: number, timeoutMs?: number }} options
 * @returns {Promise<{ base: string, readyMs: number, readyCpuS?: number, output: () => string, stop: () => Promise<void>, kill: () => Promise<void> }>}
 */
export async function startN8nServer({ nodeBin, n8nBin, env, port, timeoutMs = 120_000 }) {
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  const child = spawn(nodeBin, [n8nBin, 'start'], {
    env: {
      ...env,
      N8N_PORT: String(port),
      N8N_LISTEN_ADDRESS: '127.0.0.1',
      N8N_HOST: '127.0.0.1',
      N8N_SECURE_COOKIE: 'false',
      N8N_LOG_LEVEL: env.N8N_LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => {
      if (child.exitCode !== null) resolve();
      else child.on('exit', resolve);
    });
  };
  try {
    // /healthz, and even /rest/settings, answer before every REST controller is mounted (a
    // loaded CI machine got a 404 for /rest/owner/setup after /rest/settings answered); n8n's
    // readiness check turns 200 only once the server has finished starting (markAsReady).
    await waitForHttp(`${base}/healthz/readiness`, child, timeoutMs);
  } catch (error) {
    await stop();
    throw new Error(
      `${error instanceof Error ? error.message : error}\n--- n8n output ---\n${output.slice(-3000)}`,
    );
  }
  /** Kills n8n outright (SIGKILL), as a crash or a power cut: nothing shuts down, nothing flushes. */
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  // What this start cost the machine up to its readiness (n8n and its task runner).
  const readyCpuS = cpuSecondsOfTree(child.pid);
  return { base, readyMs: Date.now() - started, readyCpuS, output: () => output, stop, kill };
}

/**
 * The executions n8n lists for one workflow (REST, `request` logged in), newest first: [] on an
 * HTTP error, undefined when the request failed on the way (a CI runner's ECONNRESET: n8n closed
 * the idle keep-alive socket as the request went out on it). Callers poll, and ask again.
 */
export async function workflowExecutions(request, base, workflowId) {
  const response = await request.get(`${base}/rest/executions`).catch(() => undefined);
  if (!response) return undefined;
  const body = response.ok() ? await response.json() : {};
  return (body?.data?.results ?? []).filter((execution) => execution.workflowId === workflowId);
}

/**
 * Publishes a workflow's current version through n8n's REST API, as the editor's Publish button
 * does (`request` logged in as the owner); n8n starts its triggers through its publication outbox.
 */
export async function publishThroughRest(request, base, workflowId) {
  const workflow = await request.get(`${base}/rest/workflows/${workflowId}`);
  if (!workflow.ok()) throw new Error(`GET workflow ${workflowId}: HTTP ${workflow.status()}`);
  const { versionId } = (await workflow.json()).data;
  const published = await request.post(`${base}/rest/workflows/${workflowId}/activate`, {
    data: { versionId },
  });
  if (!published.ok())
    throw new Error(`publishing ${workflowId}: HTTP ${published.status()} ${await published.text()}`);
}

/** Unpublishes a workflow through n8n's REST API, as the editor's Unpublish does. */
export async function unpublishThroughRest(request, base, workflowId) {
  const unpublished = await request.post(`${base}/rest/workflows/${workflowId}/deactivate`, { data: {} });
  if (!unpublished.ok())
    throw new Error(`unpublishing ${workflowId}: HTTP ${unpublished.status()} ${await unpublished.text()}`);
}

/** Playwright's request API (cookies kept between calls), from the package's dev dependency. */
export function playwrightFor(packageDir) {
  return createRequire(join(packageDir, 'package.json'))('playwright-core');
}

/** Debian's chromium as the e2e launches it: headless, in a container, nothing fetched on its own. */
export const browserArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
