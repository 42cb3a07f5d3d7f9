// A login that expires while a published Observation Trigger streams (issue 39). With the Email
// and Password credential n8n keeps the token with the credential; the service's tokens expire
// after 24 hours. Here every token expires at once (`control.expireTokens()`, which the
// simulator then refuses on REST and on the websocket alike) and every socket is cut: the trigger
// must log in again by itself, outside any execution, be back on every socket within 5 s, and
// run every event once with its snapshot, events published during the outage included. A plain
// drop first (no expiry) must be back at once with no failed read.
import { sinkWorkflow, startSink } from './crash-restart.mjs';
import { until } from './queue-mode/process-tools.mjs';

export const loginExpiryWorkflowId = 'obsLoginExpiry01';

/** What the n8n runtime says when an expression runs outside an execution: never ours to show. */
const n8nInternal =
  /No bridge acquired|Call acquire\(\)|Isolate for this caller|\[Error resolving credentials\]/;

/**
 * Observation Trigger (snapshot attached) on one task → HTTP Request posting the event id and its
 * snapshot's type. The task is one of its own (see `addLoginExpiryTask`), so the suite's other
 * streams never run this workflow and the events of this check are the only ones it sees.
 */
export function loginExpiryWorkflow(credential, sinkUrl, taskId) {
  return sinkWorkflow({
    id: loginExpiryWorkflowId,
    name: 'Observation: a login that expires',
    credential,
    sinkUrl,
    parameters: { tasks: 'ids', taskIds: String(taskId), filters: {}, options: { attachSnapshot: true } },
    jsonBody:
      '={{ JSON.stringify({ id: $json.id, snapshot: $binary.data ? $binary.data.mimeType : null, snapshotError: $json.snapshotError ?? null }) }}',
    nodeIdBase: '7a5c0000-0000-4000-8000-0000000001',
  });
}

/** The sink the workflow posts to; start it before the workflow is written. */
export const startLoginExpirySink = startSink;

/**
 * A task of this check's own, paused: the simulator's steady stream publishes on operating tasks
 * only, and this check publishes on it explicitly.
 */
export function addLoginExpiryTask(sim) {
  return sim.control.addTask({ name: 'Login expiry check', status: 'non-operating, paused' }).id;
}

/**
 * Runs the plain drop, then the expiry, against a running n8n (`output()` its log so far) whose
 * published workflows hold `sockets` realtime sockets on `sim` (this workflow's and any other's),
 * and records the checks. Returns the figures for the log.
 */
export async function checkLoginExpiry({ sim, sink, taskId, output, check, sockets, label = '' }) {
  const stats = () => sim.control.stats();
  const timeoutMs = 90_000;
  /** The ids of `ids` no execution has posted yet. */
  const notRun = (ids) => ids.filter((id) => !sink.posts.some((post) => post.id === id));
  const posted = (ids) => notRun(ids).length === 0;
  const logStart = output().length;
  await until(() => stats().openSockets >= sockets, timeoutMs, 200, `${sockets} realtime socket(s) open`);

  // A plain drop: back at once, with no failed read. The evidence is what the service saw (core
  // logs its retries at debug level only, and n8n runs at warn or info here): one new connection
  // per socket, no upgrade refused, no login, and no request answered with an error or cut off
  // (media apart: a fresh event's snapshot may be "not there yet", which the Snapshot Wait retries).
  const dropped = await sim.control.emit(1, { latenessMs: 0, taskIds: [taskId] });
  await until(() => posted(dropped.map((e) => e.id)), timeoutMs, 200, 'the first event ran');
  const atDrop = stats();
  const dropAt = Date.now();
  sim.control.dropConnections();
  await until(
    () => stats().openSockets >= sockets && stats().connectionsTotal >= atDrop.connectionsTotal + sockets,
    timeoutMs,
    50,
    'every socket back after a plain drop',
  );
  const dropBackMs = Date.now() - dropAt;
  const afterDrop = await sim.control.emit(1, { latenessMs: 0, taskIds: [taskId] });
  await until(() => posted(afterDrop.map((e) => e.id)), timeoutMs, 200, 'the event after the drop ran');
  const seen = stats();
  const retries = {
    connections: seen.connectionsTotal - atDrop.connectionsTotal,
    refused: seen.connectionsRefused - atDrop.connectionsRefused,
    logins: seen.logins - atDrop.logins,
    failedRequests: seen.requestsFailed - atDrop.requestsFailed,
  };
  check(
    `${label}a plain drop: every socket back in ${dropBackMs} ms on its first attempt, with no failed read (the service saw ${retries.connections} connection(s) for ${sockets} socket(s), ${retries.refused} refused, ${retries.logins} login(s), ${retries.failedRequests} failed request(s))`,
    dropBackMs < 5_000 &&
      retries.connections === sockets &&
      retries.refused === 0 &&
      retries.logins === 0 &&
      retries.failedRequests === 0,
    `${JSON.stringify(retries)}; n8n's log:\n${output().slice(logStart).slice(-1500)}`,
  );

  // Every token expires and every socket is cut; events keep being published.
  const loginsBefore = stats().logins;
  const before = stats().connectionsTotal;
  const expiredAt = Date.now();
  sim.control.expireTokens();
  sim.control.dropConnections();
  const during = await sim.control.emit(3, { latenessMs: 0, taskIds: [taskId] });
  await until(
    () => stats().openSockets >= sockets && stats().connectionsTotal >= before + sockets,
    timeoutMs,
    50,
    'every socket back after the expiry',
  );
  const backMs = Date.now() - expiredAt;
  const after = await sim.control.emit(2, { latenessMs: 0, taskIds: [taskId] });
  const ids = [...during, ...after].map((event) => event.id);
  // Each event waits for its snapshot, then for a worker: on a loaded runner (a fresh clone whose
  // cluster took 431 s to come up) five of them took more than 90 s in all. The time runs from the
  // latest post, and the ids still missing are named.
  await until(
    () => posted(ids),
    timeoutMs,
    200,
    'every event published around the expiry ran',
    () => sink.posts.length,
  ).catch((error) => {
    throw new Error(`${error.message} (not run: ${notRun(ids).join(', ')} of ${ids.join(', ')})`);
  });
  // A sentinel after them all: whatever was going to run twice has run by the time it has.
  const [sentinel] = await sim.control.emit(1, { latenessMs: 0, taskIds: [taskId] });
  await until(
    () => posted([sentinel.id]),
    timeoutMs,
    200,
    'the sentinel ran',
    () => sink.posts.length,
  );
  const runs = ids.map((id) => sink.posts.filter((post) => post.id === id));
  const logins = stats().logins - loginsBefore;
  check(
    `${label}every token expired: back on every socket (${sockets}) in ${backMs} ms (within 5 s)`,
    backMs <= 5_000,
  );
  check(
    `${label}every event published during and after the expiry ran once with its snapshot (${ids.length} events)`,
    runs.every(
      (list) =>
        list.length === 1 && typeof list[0].body?.snapshot === 'string' && !list[0].body?.snapshotError,
    ),
    JSON.stringify(runs.map((list) => list.map((post) => post.body))).slice(0, 800),
  );
  const log = output().slice(logStart);
  check(
    `${label}the log holds no n8n-internal error (logins it took: ${logins})`,
    !n8nInternal.test(log) && logins >= 1,
    log.slice(-2000),
  );
  return { dropBackMs, backMs, logins, events: ids.length };
}
