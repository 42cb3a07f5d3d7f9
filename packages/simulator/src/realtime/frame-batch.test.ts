import { describe, expect, it } from 'vitest';
import { FrameBatch, FrameRuns } from './frame-batch.js';

/** Decodes unmasked server frames back to their texts. */
function decode(bytes: Buffer): string[] {
  const texts: string[] = [];
  let at = 0;
  while (at < bytes.length) {
    expect(bytes[at]).toBe(0x81);
    let length = (bytes[at + 1] as number) & 0x7f;
    expect((bytes[at + 1] as number) & 0x80).toBe(0); // server frames are not masked
    let header = 2;
    if (length === 126) {
      length = bytes.readUInt16BE(at + 2);
      header = 4;
    } else if (length === 127) {
      length = bytes.readUInt32BE(at + 2) * 2 ** 32 + bytes.readUInt32BE(at + 6);
      header = 10;
    }
    texts.push(bytes.toString('utf8', at + header, at + header + length));
    at += header + length;
  }
  return texts;
}

describe('FrameBatch', () => {
  it('encodes every payload length class and non-ASCII text', () => {
    const texts = [
      '',
      'x',
      'a'.repeat(125),
      'b'.repeat(126),
      'ü€𝄞'.repeat(40),
      'c'.repeat(65535),
      'd'.repeat(70_000),
      '{"ok":1}',
    ];
    const batch = new FrameBatch();
    const runs = new FrameRuns();
    for (const text of texts) runs.push(batch.add(text));
    expect(decode(Buffer.concat(runs.slices(batch)))).toEqual(texts);
  });

  it('merges adjacent frames into one slice and keeps gaps apart', () => {
    const batch = new FrameBatch();
    const all = new FrameRuns();
    const odd = new FrameRuns();
    for (let n = 0; n < 10; n++) {
      const frame = batch.add(`event ${n}`);
      all.push(frame);
      if (n % 2 === 1) odd.push(frame);
    }
    expect(all.slices(batch)).toHaveLength(1);
    expect(odd.slices(batch)).toHaveLength(5);
    expect(decode(Buffer.concat(odd.slices(batch)))).toEqual([
      'event 1',
      'event 3',
      'event 5',
      'event 7',
      'event 9',
    ]);
  });

  it('starts a new segment when a frame does not fit', () => {
    const batch = new FrameBatch();
    const runs = new FrameRuns();
    const big = 'z'.repeat(200_000);
    for (let n = 0; n < 4; n++) runs.push(batch.add(big));
    expect(batch.segments.length).toBeGreaterThan(1);
    expect(decode(Buffer.concat(runs.slices(batch)))).toEqual([big, big, big, big]);
  });
});
