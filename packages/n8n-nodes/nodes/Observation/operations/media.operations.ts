import { MediaMissingError, type ObservationClient } from '@observation-service/core/portable';
import { type IBinaryData, type IDataObject, type IExecuteFunctions, NodeOperationError } from 'n8n-workflow';
import { toNodeError } from '../../../shared/node-error';
import {
  defaultClipWaitSeconds,
  defaultSnapshotWaitSeconds,
  maxMediaWaitSeconds,
} from '../descriptions/media.description';
import { mediaUrlField, withFieldLabel } from '../field-labels';

/**
 * Media → Download Snapshot / Download Clip. Core signs the URL (only for the service and the
 * trusted media hosts), downloads it and names the file; the result becomes n8n binary data
 * (streamed for clips, so large videos are not held in memory).
 */
export async function downloadMedia(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
  kind: 'image' | 'video',
): Promise<IBinaryData> {
  const url = context.getNodeParameter('url', itemIndex) as string;
  const waitMs = mediaWaitMs(context, itemIndex, kind);
  // A URL carries no event time: core waits from now, up to the wait set on the node.
  const media = await withWaitHint(
    context,
    itemIndex,
    kind === 'image' ? 'downloadSnapshot' : 'downloadClip',
    () => client.media.download(url, kind, { waitMs }),
  );
  return context.helpers.prepareBinaryData(media.data, media.fileName, media.contentType);
}

/** The node's Snapshot Wait or Clip Wait, in ms, checked (the error names the field). */
export function mediaWaitMs(context: IExecuteFunctions, itemIndex: number, kind: 'image' | 'video'): number {
  const [name, label, fallback] =
    kind === 'image'
      ? (['snapshotWaitSeconds', 'Snapshot Wait (Seconds)', defaultSnapshotWaitSeconds] as const)
      : (['clipWaitSeconds', 'Clip Wait (Seconds)', defaultClipWaitSeconds] as const);
  const value = context.getNodeParameter(name, itemIndex, fallback) as unknown;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > maxMediaWaitSeconds) {
    throw new NodeOperationError(
      context.getNode(),
      `${label} must be a number of seconds from 0 to ${maxMediaWaitSeconds}, not ${JSON.stringify(value)}`,
      { itemIndex },
    );
  }
  return Math.round(value * 1000);
}

/**
 * A file still missing when the wait ran out: core's message (which file, how long it waited,
 * the last answer) and the field that sets the wait, the one thing the user can change.
 */
async function withWaitHint<T>(
  context: IExecuteFunctions,
  itemIndex: number,
  operation: 'downloadSnapshot' | 'downloadClip' | 'annotatedSnapshot',
  download: () => Promise<T>,
): Promise<T> {
  try {
    return await download();
  } catch (error) {
    // A media URL that does not answer is fixed in the field it came from, not the credential.
    const nodeError = toNodeError(
      context.getNode(),
      withFieldLabel(error, operation),
      itemIndex,
      mediaUrlField(operation),
    );
    if (!MediaMissingError.isInstance(error)) throw nodeError;
    const field = operation === 'downloadClip' ? 'Clip Wait (Seconds)' : 'Snapshot Wait (Seconds)';
    throw new NodeOperationError(
      context.getNode(),
      `${error.message}. If the service writes its files later, raise ${field}.`,
      { itemIndex },
    );
  }
}

/** Reads the Event parameter: an object (usually `{{ $json }}`) or its JSON text. */
function readEvent(context: IExecuteFunctions, itemIndex: number): Record<string, unknown> {
  const value = context.getNodeParameter('event', itemIndex) as unknown;
  let event: unknown = value;
  if (typeof value === 'string') {
    try {
      event = JSON.parse(value);
    } catch {
      event = undefined;
    }
  }
  if (!event || typeof event !== 'object' || Array.isArray(event)) {
    throw new NodeOperationError(
      context.getNode(),
      'Event must be an event object (e.g. {{ $json }} of a trigger item)',
      {
        itemIndex,
      },
    );
  }
  return event as Record<string, unknown>;
}

/**
 * Media → Get Annotated Snapshot: core downloads the event's snapshot and draws its objects'
 * boxes and labels; the node only turns the image into binary data.
 */
export async function annotatedSnapshot(
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
): Promise<{ binary: IBinaryData; drawn: number }> {
  const event = readEvent(context, itemIndex);
  const options = context.getNodeParameter('annotateOptions', itemIndex, {}) as IDataObject;
  const waitMs = mediaWaitMs(context, itemIndex, 'image');
  // An event from the trigger or Get Many may be the newest one: its snapshot waited for from now.
  const image = await withWaitHint(context, itemIndex, 'annotatedSnapshot', () =>
    client.media.annotatedSnapshot(event, {
      format: options.format as 'png' | 'jpeg' | undefined,
      labels: options.labels as boolean | undefined,
      lineWidth: options.lineWidth as number | undefined,
      waitMs,
      receivedAt: Date.now(),
    }),
  );
  const binary = await context.helpers.prepareBinaryData(image.data, image.fileName, image.contentType);
  return { binary, drawn: image.drawn };
}
