import type { ITriggerFunctions } from 'n8n-workflow';

/**
 * The nodes after the trigger that keep values in the workflow's static data
 * (`$getWorkflowStaticData` in a Code node or an expression), enabled ones only.
 *
 * n8n keeps a workflow's static data as one object and saves it whole, last writer wins: the
 * trigger's copy (loaded when the workflow was published or n8n started) at each event it hands
 * over, and each execution's copy (loaded when it started) when the execution changed it. So what
 * these nodes store is put back to the trigger's copy at the trigger's next save, and the
 * trigger's saved position (with its record of unfinished executions) is put back to what it was
 * when that execution started; n8n's task runner can even hand a Code node's copy back without the
 * trigger's part. n8n gives a trigger no way to read the newer copy, so the trigger says so once
 * per activation, and an n8n restart that finds no position catches up (`subscribeOptions`).
 */
export function staticDataUsers(context: ITriggerFunctions): string[] {
  const own = context.getNode().name;
  return context
    .getChildNodes(own, { includeNodeParameters: true })
    .filter(
      (node) => !node.disabled && JSON.stringify(node.parameters ?? {}).includes('getWorkflowStaticData'),
    )
    .map((node) => node.name);
}

/** The warning n8n's log shows when `staticDataUsers` found any (names quoted, at most five). */
export function staticDataWarning(users: string[]): string {
  const named = users
    .slice(0, 5)
    .map((name) => `"${name}"`)
    .join(', ');
  const more = users.length > 5 ? ` and ${users.length - 5} more` : '';
  return (
    `Observation Trigger: ${named}${more} keep${users.length === 1 ? 's' : ''} values in the workflow's static data, ` +
    'which n8n saves as one object, last writer wins: this trigger saves its position there at each event, which puts ' +
    'those values back to what they were when the workflow was published or n8n started, and their executions can put ' +
    "the trigger's position back or remove it. After a crash the trigger then catches up Max Catch-Up, and events of " +
    'executions the crash cut off may wait in the Executions list for a Retry. ' +
    "For an alert cooldown use the trigger's Cooldown option; keep counters and other state in a Data table."
  );
}
