// Issue 52: a Code node after the Observation Trigger keeping a count in the workflow's static
// data ($getWorkflowStaticData('global')), as users keep a counter or an alert cooldown. n8n
// saves a workflow's static data as one object, last writer wins: the trigger's copy (loaded at
// its activation) at each of its emits, each execution's copy (loaded when it started) if it
// changed it. Whether an execution's count survives depends on which save lands last, so the
// check makes the trigger's save the last one: after counted events, an event of a second task
// the Code node does not count (its execution changes nothing, so it saves nothing). What n8n
// then holds is the trigger's copy: every count since the activation is gone. The second
// activation is n8n's own restart (the workflow stays published; n8n activates it at its start and
// the trigger loads the stored static data): the same, from the value it loaded. n8n's log warns
// at each activation.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sinkWorkflow } from './crash-restart.mjs';
import { publishThroughRest, unpublishThroughRest, workflowExecutions } from './n8n-server.mjs';

export const staticDataWorkflowId = 'obsStaticData01';

/** The count a user's Code node keeps, for events of `countedTask` only. */
function countingCode(countedTask) {
  return [
    `if ($json.taskId !== ${countedTask}) return $input.all();`,
    "const data = $getWorkflowStaticData('global');",
    'data.executions = (data.executions ?? 0) + 1;',
    'return $input.all().map((item) => ({ json: { ...item.json, counted: data.executions } }));',
  ].join('\n');
}

/** Two tasks of their own: events of the first are counted, of the second not. */
export function addStaticDataTasks(sim) {
  return ['counted', 'not counted'].map(
    (name) => sim.control.addTask({ name: `Static data check (${name})`, status: 'operating, normal' }).id,
  );
}

/** Observation Trigger on both tasks → Code (the count) → HTTP Request posting `{ id, counted }`. */
export function staticDataWorkflow(credential, sinkUrl, [countedTask, otherTask]) {
  return sinkWorkflow({
    id: staticDataWorkflowId,
    name: 'Observation: a count in static data',
    credential,
    sinkUrl,
    parameters: { tasks: 'ids', taskIds: `${countedTask}, ${otherTask}`, filters: {}, options: {} },
    jsonBody: '={{ JSON.stringify({ id: $json.id, counted: $json.counted ?? null }) }}',
    nodeIdBase: '7a5c0000-0000-4000-8000-0000000002',
    code: countingCode(countedTask),
  });
}

async function until(condition, timeoutMs, what) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what} not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The count n8n holds for the workflow now (undefined: none), read from its sqlite file. */
function storedCount(userFolder) {
  const db = new DatabaseSync(join(userFolder, '.n8n', 'database.sqlite'), { readOnly: true });
  try {
    const row = db.prepare('SELECT staticData FROM workflow_entity WHERE id = ?').get(staticDataWorkflowId);
    return (row?.staticData ? JSON.parse(String(row.staticData)) : {}).global?.executions;
  } finally {
    db.close();
  }
}

/**
 * Whether n8n has finished every execution of the workflow (REST, logged in as the owner); not
 * yet when the request failed on the way (the wait asks again, and its own limit decides).
 */
async function allFinished(request, base) {
  const executions = await workflowExecutions(request, base, staticDataWorkflowId);
  return executions?.every((execution) => !['new', 'running', 'waiting'].includes(execution.status)) ?? false;
}

/**
 * One activation of the workflow: the count n8n held when it began, the counts three counted
 * events saw (each sent once the one before has finished), and the count n8n holds once an
 * uncounted event has run after them. With `publish`, the workflow is published first (through
 * the REST API, as the editor's Publish); without, it is published already and n8n activated it
 * when it started. With `thenCount`, one more counted event runs at the end, so the next
 * activation loads a count; with `unpublish`, the workflow is unpublished at the end.
 * `request` is logged in as the owner.
 */
export async function countsInOneActivation({
  sim,
  sink,
  tasks: [counted, other],
  request,
  base,
  userFolder,
  publish,
  thenCount = false,
  unpublish = true,
}) {
  const run = async (taskId) => {
    const [event] = await sim.control.emit(1, { latenessMs: 0, taskIds: [taskId] });
    await until(() => sink.posts.some((post) => post.id === event.id), 60_000, `event ${event.id} posted`);
    await until(() => allFinished(request, base), 60_000, `the execution of event ${event.id} finished`);
    return sink.posts.find((post) => post.id === event.id).body.counted;
  };
  const atStart = storedCount(userFolder);
  const sockets = sim.control.stats().openSockets;
  if (publish) {
    await publishThroughRest(request, base, staticDataWorkflowId);
    await until(() => sim.control.stats().openSockets > sockets, 60_000, 'the trigger subscribed');
  }
  const seen = [await run(counted), await run(counted), await run(counted)];
  await run(other);
  // The trigger's save at that last emit lands last: nothing writes after it.
  let after;
  await until(
    () => {
      after = storedCount(userFolder);
      return after === atStart;
    },
    10_000,
    'the stored count back to its value at the activation',
  ).catch(() => undefined);
  if (thenCount) await run(counted);
  if (unpublish) {
    const open = sim.control.stats().openSockets;
    await unpublishThroughRest(request, base, staticDataWorkflowId);
    await until(() => sim.control.stats().openSockets < open, 30_000, 'the trigger closed');
  }
  return { atStart: atStart ?? 0, seen, after: after ?? 0 };
}
