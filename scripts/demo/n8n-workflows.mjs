// Which of the example workflows the n8n demo publishes, and what the simulator sees of them once
// n8n runs: the Observation Trigger holds one realtime socket per node, the Observation Task
// Trigger is an n8n polling trigger and never opens one.

const TRIGGER = /\.observation(Task)?Trigger$/;
const REALTIME_TRIGGER = /\.observationTrigger$/;

/** Nodes n8n runs (a disabled node starts nothing). */
function enabledNodes(workflow) {
  return (workflow.nodes ?? []).filter((node) => node.disabled !== true);
}

/** The examples with a trigger of this package: the demo publishes (activates) them. */
export function triggerWorkflows(examples) {
  return examples.filter(({ workflow }) =>
    enabledNodes(workflow).some((node) => TRIGGER.test(node.type ?? '')),
  );
}

/** Realtime sockets the published examples open: one per enabled Observation Trigger node. */
export function expectedSockets(examples) {
  return triggerWorkflows(examples).reduce(
    (count, { workflow }) =>
      count + enabledNodes(workflow).filter((node) => REALTIME_TRIGGER.test(node.type ?? '')).length,
    0,
  );
}
