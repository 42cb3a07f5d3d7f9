// The demo's knobs, read from the environment so `npm start` needs no arguments. Every value
// is checked here, and a bad one stops the demo with a message naming the variable, the value
// given and what is allowed.
import { isIP } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';

/** Thrown for a bad environment value; demo.mjs prints its message without a stack. */
export class DemoSettingError extends Error {}

function integer(env, name, fallback, min, max) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new DemoSettingError(`${name}="${raw}" is not allowed: use a whole number from ${min} to ${max}`);
  }
  return value;
}

function number(env, name, fallback, min, max) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new DemoSettingError(`${name}="${raw}" is not allowed: use a number from ${min} to ${max}`);
  }
  return value;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host) {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * @param {string} root the repository root
 * @param {Record<string, string | undefined>} env
 */
export function readSettings(root, env = process.env) {
  const host = (env.DEMO_HOST ?? '127.0.0.1').trim();
  if (host !== 'localhost' && isIP(host) === 0) {
    throw new DemoSettingError(
      `DEMO_HOST="${host}" is not allowed: use an IP address of this machine (127.0.0.1, 0.0.0.0, …) or localhost`,
    );
  }
  const dir = env.DEMO_DIR?.trim() ? env.DEMO_DIR.trim() : join(root, '.demo');
  return {
    host,
    nodeRedPort: integer(env, 'NODE_RED_PORT', 1880, 0, 65535),
    simulatorPort: integer(env, 'SIMULATOR_PORT', 8080, 0, 65535),
    n8nPort: integer(env, 'N8N_DEMO_PORT', 5678, 0, 65535),
    /** Seconds before the n8n demo starts n8n again after it stopped or was killed from outside. */
    n8nRestartSeconds: integer(env, 'DEMO_N8N_RESTART_SECONDS', 5, 0, 3600),
    /** Seconds before the Node-RED demo starts Node-RED again after it stopped or was killed from outside. */
    nodeRedRestartSeconds: integer(env, 'DEMO_NODE_RED_RESTART_SECONDS', 5, 0, 3600),
    /** Live events per second across the simulator's active tasks. */
    rate: number(env, 'DEMO_RATE', 1, 0, 1000),
    seed: integer(env, 'DEMO_SEED', 1, 0, 2 ** 31 - 1),
    /** Seconds between two polls of the task health watch. */
    taskWatchSeconds: integer(env, 'DEMO_TASK_WATCH_SECONDS', 10, 1, 86400),
    /** Where the demo keeps its Node-RED and n8n user folders (git-ignored). */
    dir: isAbsolute(dir) ? dir : resolve(root, dir),
    logLevel: env.DEMO_LOG_LEVEL?.trim() || 'warn',
  };
}
