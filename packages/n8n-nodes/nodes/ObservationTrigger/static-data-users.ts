import type { ITriggerFunctions } from 'n8n-workflow';

/**
 * The nodes after the trigger that keep values in the workflow's static data
 * (`$getWorkflowStaticData` in a Code node or an expression), enabled ones only.
 *
 * n8n keeps a workflow's static data as one object and saves it whole, last writer wins: the
 * trigger's copy (loaded when the workflow was published or n8n started) at each event it hands
 * over, and each execution's copy (loaded when it started) when the execution changed it. So what
 * these nodes store is put back to the trigger's copy at the trigger's next save. n8n gives a
 * trigger no way to read the newer copy; the trigger can only say so, once per activation.
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
    "which n8n saves as one object: this trigger saves its position there at each event, and each save puts the workflow's " +
    'static data back to what it was when the workflow was published or n8n started, so those values are lost. ' +
    "For an alert cooldown use the trigger's Cooldown option; keep counters and other state in a Data table."
  );
}
