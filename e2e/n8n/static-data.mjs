// Issue 52: a Code node after the Observation Trigger keeping a count in the workflow's static
// data ($getWorkflowStaticData('global')), as users keep a counter or an alert cooldown. n8n
// saves a workflow's static data as one object, last writer wins: the trigger's copy at each of
// its emits, each execution's copy when it changed it. This check shows what remains of the count
// over a stream and a second activation (the trigger unpublished and published again, which loads
// the stored static data as n8n's restart does), and that n8n's log warns at activation.

import { sinkWorkflow } from './crash-restart.mjs';
import { publishThroughRest, unpublishThroughRest } from './n8n-server.mjs';

export const staticDataWorkflowId = 'obsStaticData01';

/** The count a user's Code node keeps: what it stored before is what the next execution reads. */
const countingCode = [
  "const data = $getWorkflowStaticData('global');",
  'data.executions = (data.executions ?? 0) + 1;',
  'return $input.all().map((item) => ({ json: { ...item.json, counted: data.executions } }));',
].join('\n');

export function addStaticDataTask(sim) {
  return sim.control.addTask({ name: 'Static data check', status: 'operating, normal' }).id;
}

/** Observation Trigger on `taskId` → Code (the count) → HTTP Request posting `{ id, counted }`. */
export function staticDataWorkflow(credential, sinkUrl, taskId) {
  return sinkWorkflow({
    id: staticDataWorkflowId,
    name: 'Observation: a count in static data',
    credential,
    sinkUrl,
    parameters: { tasks: 'ids', taskIds: String(taskId), filters: {}, options: {} },
    jsonBody: '={{ JSON.stringify({ id: $json.id, counted: $json.counted }) }}',
    nodeIdBase: '7a5c0000-0000-4000-8000-0000000002',
    code: countingCode,
  });
}

async function until(condition, timeoutMs, what) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what} not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Two activations of three events each, every event sent once the one before has posted (so no
 * two executions overlap): returns the counts the executions saw, in order. `request` is logged in
 * as the owner; the workflow is left unpublished.
 */
export async function countsOverTwoActivations({ sim, sink, taskId, request, base }) {
  const counts = [];
  for (let activation = 0; activation < 2; activation++) {
    const sockets = sim.control.stats().openSockets;
    await publishThroughRest(request, base, staticDataWorkflowId);
    await until(() => sim.control.stats().openSockets > sockets, 60_000, 'the trigger subscribed');
    for (let i = 0; i < 3; i++) {
      const [event] = await sim.control.emit(1, { latenessMs: 0, taskIds: [taskId] });
      await until(() => sink.posts.some((post) => post.id === event.id), 60_000, `event ${event.id} posted`);
      counts.push(sink.posts.find((post) => post.id === event.id).body.counted);
    }
    await unpublishThroughRest(request, base, staticDataWorkflowId);
    await until(() => sim.control.stats().openSockets === sockets, 30_000, 'the trigger closed');
  }
  return counts;
}
