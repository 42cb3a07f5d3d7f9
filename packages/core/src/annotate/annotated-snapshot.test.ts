import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol-error.js';
import type { MediaDownload } from '../media-download.js';
import { downloadAnnotatedSnapshot } from './annotated-snapshot.js';

// The simulator always serves valid PNGs, so a service answering with a broken image can only be
// played by a stand-in downloader here.
const serving = (data: Buffer) => async (): Promise<MediaDownload<Buffer>> => ({
  data,
  contentType: 'image/png',
  size: data.length,
  fileName: 'event-5.png',
});

describe('downloadAnnotatedSnapshot', () => {
  it('reports an undecodable image from the service as a ProtocolError naming the file', async () => {
    const html = Buffer.from('<html>login required</html>');
    const error = await downloadAnnotatedSnapshot(serving(html), { imageUrl: 'x', objects: [] }).catch(
      (e) => e,
    );
    expect(ProtocolError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /event-5\.png \(image\/png\) is not a usable image: 27 bytes starting with 3c 68 74 6d/,
    );
    expect(error.sample).toBe(html.subarray(0, 16).toString('hex'));
  });
});
