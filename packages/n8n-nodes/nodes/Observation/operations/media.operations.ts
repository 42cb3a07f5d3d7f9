import type { ObservationClient } from '@observation-service/core';
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

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
