import type { ObservationClient } from '@observation-service/core/portable';
import { type IBinaryData, type IDataObject, type IExecuteFunctions, NodeOperationError } from 'n8n-workflow';

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
  const media = await client.media.download(url, kind);
  return context.helpers.prepareBinaryData(media.data, media.fileName, media.contentType);
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
  const image = await client.media.annotatedSnapshot(event, {
    format: options.format as 'png' | 'jpeg' | undefined,
    labels: options.labels as boolean | undefined,
    lineWidth: options.lineWidth as number | undefined,
  });
  const binary = await context.helpers.prepareBinaryData(image.data, image.fileName, image.contentType);
  return { binary, drawn: image.drawn };
}
