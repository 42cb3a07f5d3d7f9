// Node-RED of `npm start`, in a process of its own: the demo (scripts/demo.mjs) starts it through
// node-red-process.mjs and starts it again after it stopped or was killed, while the simulator
// in the demo's process keeps publishing. Stopping this process (SIGTERM, SIGINT, SIGHUP) stops
// Node-RED as its own `node-red` command does (every node closed, context written); killing it
// (SIGKILL) is a crash. It ends with the demo: when the demo's IPC channel closes, it stops.
//
// IPC: the demo sends { start: options } (startNodeRed's options, and `flows`: the demo's own
// flows to deploy among the saved ones, or none to run the saved flows as they are); this process
// answers { ready: { url, version } } once Node-RED listens with its flows started, or
// { failed: { message, port } } and exits 1.

import { startNodeRed } from './node-red.mjs';
import { isDemoNode } from './node-red-flows.mjs';
import { PortError } from './ports.mjs';

/** Longest a stop may take before the process exits anyway (the demo's own limit is 10 s). */
const FORCE_AFTER_MS = 8_000;

let nodeRed;
let stopping = false;

function stopAndExit(code) {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(1), FORCE_AFTER_MS).unref();
  Promise.resolve(nodeRed?.stop()).then(
    () => process.exit(code),
    () => process.exit(1),
  );
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stopAndExit(0));
// The demo went away without stopping this process first (it was killed).
process.on('disconnect', () => stopAndExit(0));

process.once('message', async ({ start }) => {
  const { flows, ...options } = start;
  try {
    nodeRed = await startNodeRed(options);
    if (flows) await nodeRed.deploy(flows, isDemoNode);
    process.send({ ready: { url: nodeRed.url, version: nodeRed.version } });
  } catch (error) {
    const failed =
      error instanceof PortError
        ? { message: error.message, port: true }
        : { message: error instanceof Error ? (error.stack ?? error.message) : String(error), port: false };
    process.send({ failed }, () => process.exit(1));
  }
});
