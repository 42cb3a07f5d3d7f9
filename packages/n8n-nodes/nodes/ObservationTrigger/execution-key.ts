import { stableHash } from '@observation-service/core/portable';
import type { IDataObject } from 'n8n-workflow';

/**
 * The deduplication key the trigger passes with each production execution (n8n 2.41+ emit's 4th
 * argument). n8n stores it on the execution row under a UNIQUE index and refuses a second
 * execution with the same key ("Execution with deduplication key … already exists", logged and
 * skipped). That makes an event re-delivered after a restart harmless: a main killed right
 * after emitting catches up again what its saved position does not cover yet (see
 * confirmed-position.ts); those executions already exist and n8n skips them. Older n8n versions
 * ignore the argument.
 *
 * The index is global across workflows, so the key names the workflow and the trigger node too.
 * One event: its record id (extended form), or a hash of what makes a basic-form event unique.
 * A batch: a hash of all its events. A batch caught up again after a restart need not group the
 * same events, so batches are refused only when identical: with a batch size above 1 a killed
 * main may repeat the events of its last batches (never lose them); with 1, each event is
 * exactly one execution.
 */
export function executionKey(workflowId: string | undefined, nodeId: string, items: IDataObject[]): string {
  const scope = `observation:${workflowId ?? 'unsaved'}:${nodeId}`;
  const identities = items.map(eventIdentity);
  const [only] = identities;
  if (identities.length === 1 && only !== undefined && /^\d+$/.test(only)) return `${scope}:${only}`;
  return `${scope}:h${stableHash(identities.join(','))}`;
}

/** What identifies an event in its output item: the record id, else task, kind, time and media. */
function eventIdentity(json: IDataObject): string {
  if (Number.isSafeInteger(json.id)) return String(json.id);
  return [json.taskId, json.eventId, json.occurredAt, json.imageUrl ?? '', json.videoUrl ?? ''].join('|');
}
