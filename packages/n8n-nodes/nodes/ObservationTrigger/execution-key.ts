import type { ObservationEvent } from '@observation-service/core/portable';

/**
 * The deduplication key the trigger passes with each production execution (n8n 2.41+ emit's 4th
 * argument). n8n stores it on the execution row under a UNIQUE index and refuses a second
 * execution with the same key ("Execution with deduplication key … already exists", logged and
 * skipped). That makes an event re-delivered after a restart harmless: in queue mode the main
 * process saves the trigger's position (static data) only when the NEXT event is emitted, so a
 * main killed right after emitting an event catches that event up again on restart; its
 * execution already exists and n8n skips it. Older n8n versions ignore the argument.
 *
 * The index is global across workflows, so the key names the workflow and the trigger node too.
 * The record id identifies an event (extended form); the basic form has none, so its content
 * (task, event kind, time, media URLs) is hashed to keep the key short (the column holds 255).
 */
export function executionKey(
  workflowId: string | undefined,
  nodeId: string,
  event: ObservationEvent,
): string {
  const scope = `observation:${workflowId ?? 'unsaved'}:${nodeId}`;
  if (event.id !== undefined) return `${scope}:${event.id}`;
  const content = [
    event.taskId,
    event.eventId,
    event.occurredAt.getTime(),
    event.imageUrl ?? '',
    event.videoUrl ?? '',
  ].join('|');
  return `${scope}:b${hash(content)}`;
}

/** Two FNV-1a lanes (64 bits): not a secret, only short and stable. */
function hash(text: string): string {
  let first = 0x811c9dc5;
  let second = 0x01000193;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193) >>> 0;
    second = Math.imul(second ^ code, 0x5bd1e995) >>> 0;
  }
  return `${first.toString(16).padStart(8, '0')}${second.toString(16).padStart(8, '0')}`;
}
