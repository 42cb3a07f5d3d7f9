import type { EventBatch } from '@observation-service/core/portable';
import type { ITriggerFunctions } from 'n8n-workflow';
import { eventToJson } from '../../shared/event-json';
import { emitExecution, executionKey } from './emit-execution';
import { toItem } from './trigger-items';
import type { TriggerSettings } from './trigger-parameters';

/**
 * The trigger's batch handler: one n8n execution per batch, acknowledged when n8n finished it.
 * `stop` is aborted when n8n deactivates the trigger.
 */
export function batchExecutions(
  context: ITriggerFunctions,
  settings: TriggerSettings,
  stop: AbortSignal,
): (batch: EventBatch) => Promise<void> {
  // n8n refuses a second execution with the same key, so events caught up again after a
  // restart are not run twice: the workflow, the node and the batch's identity (core's).
  const scope = `observation:${context.getWorkflow().id ?? 'unsaved'}:${context.getNode().id}`;
  return async (batch) => {
    // Deactivated (closing aborts the snapshot downloads, and their batches may still come): no
    // execution starts, and the batch is never acknowledged, so the position stays before it.
    if (stop.aborted) return new Promise<void>(() => {});
    // Without snapshots nothing is awaited per event: no promise per item in a batch of 100.
    const items = settings.attachSnapshot
      ? await Promise.all(
          batch.events.map((event, i) => toItem(context, settings, event, batch.metas[i]?.media)),
        )
      : batch.events.map((event) => ({ json: eventToJson(event) }));
    if (stop.aborted) return new Promise<void>(() => {});
    // With a cooldown, each item says how many events of its camera (task, object) were held back
    // since the previous execution of it: what a digest or a log counts.
    if (settings.cooldown)
      items.forEach((item, i) => {
        const cooldown = batch.metas[i]?.cooldown;
        if (cooldown) item.json.cooldown = { key: cooldown.key, heldBack: cooldown.heldBack };
      });
    await emitExecution(
      context,
      items,
      executionKey(scope, batch.key, batch.attempt),
      settings.rerunLostExecutions,
      settings.runAgainPausesMs !== undefined,
    );
  };
}
