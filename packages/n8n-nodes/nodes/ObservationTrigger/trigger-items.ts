import type { EventMedia, ObservationClient, ObservationEvent } from '@observation-service/core/portable';
import type { INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';
import { eventToJson } from '../../shared/event-json';
import { toNodeError } from '../../shared/node-error';
import type { TriggerSettings } from './trigger-parameters';

/**
 * The output item of one event with its snapshot, as core prepared it (`media`). A snapshot that
 * did not come is named on the item, never fatal.
 */
export async function toItem(
  context: ITriggerFunctions,
  settings: TriggerSettings,
  event: ObservationEvent,
  media: EventMedia | undefined,
): Promise<INodeExecutionData> {
  const json = eventToJson(event);
  if (!settings.attachSnapshot) return { json };
  const snapshot = media?.snapshot;
  if (!snapshot) {
    const reason = media?.error
      ? toNodeError(context.getNode(), media.error).message
      : 'the event has no snapshot';
    return { json: { ...json, missingImages: ['snapshot'], snapshotError: reason } };
  }
  const binary = await context.helpers.prepareBinaryData(
    snapshot.data,
    snapshot.fileName,
    snapshot.contentType,
  );
  return { json, binary: { [settings.binaryPropertyName]: binary } };
}

/**
 * "Listen for test event": core's test event (the newest stored one at once, marked as a test
 * event, or else the first live one) with its snapshot as the active trigger would have it.
 * Nothing is emitted when the user stops listening first.
 */
export async function emitTestEvent(
  context: ITriggerFunctions,
  client: ObservationClient,
  settings: TriggerSettings,
  signal: AbortSignal,
  onError: (error: Error) => void,
): Promise<void> {
  const media = settings.attachSnapshot ? { media: { snapshot: true, waitMs: settings.snapshotWaitMs } } : {};
  let found: Awaited<ReturnType<ObservationClient['events']['first']>>;
  try {
    found = await client.events.first(settings.selection, {
      filter: settings.filter,
      signal,
      onError,
      ...media,
    });
  } catch (error) {
    throw toNodeError(context.getNode(), error);
  }
  if (!found) return;
  const item = await toItem(context, settings, found.event, found.meta.media);
  if (found.stored) item.json.testEvent = true;
  context.emit([[item]]);
}
