// The demo's side of its Node-RED process (node-red-child.mjs): started in a process group of its
// own, so stopping it ends whatever its flows started too (an exec node's command), and so the
// terminal's Ctrl-C reaches the demo, which stops Node-RED in order, not Node-RED directly.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PortError } from './ports.mjs';

const CHILD = fileURLToPath(new URL('./node-red-child.mjs', import.meta.url));
/** SIGTERM first; SIGKILL if Node-RED has not stopped by then (within the demo's 10 s). */
const KILL_AFTER_MS = 9_000;

/**
 * Starts Node-RED in a child process.
 * @param {object} options startNodeRed's options, plus `flows` to deploy (node-red-child.mjs)
 * @returns {{ pid: number, ready: Promise<{ url: string, version: string }>,
 *   exited: Promise<{ code: number | null, signal: string | null }>, stop(): Promise<void> }}
 *   `ready` rejects when Node-RED exits or fails before it is up (a PortError for its port)
 */
export function startNodeRedProcess(options) {
  const child = spawn(process.execPath, [CHILD], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    child.once('message', (message) => {
      if (message?.ready) resolve(message.ready);
      else if (message?.failed?.port) reject(new PortError(message.failed.message));
      else reject(new Error(message?.failed?.message ?? 'Node-RED did not start'));
    });
    child.once('error', reject);
    void exited.then(({ code, signal }) =>
      reject(new Error(`Node-RED exited while starting (code ${code}, signal ${signal})`)),
    );
  });
  // Stopped before it was up, a start that failed is not a second error.
  ready.catch(() => undefined);
  child.send({ start: options });

  let stopping;
  function stop() {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        signalGroup(child, 'SIGTERM');
        const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), KILL_AFTER_MS);
        await exited;
        clearTimeout(timer);
      }
      // Anything its flows started and left in the group.
      signalGroup(child, 'SIGKILL');
    })();
    return stopping;
  }

  return { pid: child.pid, ready, exited, stop };
}

/** A signal to the child's process group (Node-RED and what its flows started). */
export function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}
