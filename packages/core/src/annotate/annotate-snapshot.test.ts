import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import type { DetectedObject } from '../model/observation-event.js';
import { resolveAnnotateOptions } from './annotate-options.js';
import { annotateSnapshot } from './annotate-snapshot.js';
import { decodeImage, encodeImage } from './image-codec.js';

function png(width: number, height: number, alpha = false): Buffer {
  const image = new PNG({ width, height });
  image.data.fill(0);
  for (let i = 3; i < image.data.length; i += 4) image.data[i] = alpha ? 128 : 255;
  return PNG.sync.write(image, { colorType: alpha ? 6 : 2 });
}

const person: DetectedObject = {
  objectId: '1',
  name: 'person',
  box: { cx: 0.5, cy: 0.5, w: 0.5, h: 0.5 },
  confidence: 0.9,
  warning: false,
};

function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('annotateSnapshot on bad input', () => {
  it('refuses bytes that are not PNG or JPEG, naming what it got', () => {
    const error = refusal(() => annotateSnapshot(Buffer.from('GIF89a....'), [person]));
    expect(error.parameter).toBe('image');
    expect(error.message).toMatch(/10 bytes starting with 47 49 46 38.*PNG or JPEG/);
    expect(refusal(() => annotateSnapshot(Buffer.alloc(0), [])).message).toMatch(/empty buffer/);
    expect(refusal(() => annotateSnapshot('not bytes' as unknown as Buffer, [])).parameter).toBe('image');
  });

  it('refuses truncated and corrupt PNGs and JPEGs with a ValidationError, never another error', () => {
    const good = png(32, 16);
    const cases = [
      good.subarray(0, 20),
      good.subarray(0, 40),
      good.subarray(0, good.length - 20),
      Buffer.concat([good.subarray(0, 33), Buffer.alloc(good.length - 33, 7)]),
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 1, 2, 3]),
      Buffer.from([0xff, 0xd8, 0xff]),
    ];
    for (const bytes of cases) {
      const error = refusal(() => annotateSnapshot(bytes, [person]));
      expect(error.parameter).toBe('image');
      expect(error.message).toMatch(/cannot be decoded|PNG or JPEG/);
    }
  });

  it('refuses an image over maxPixels from its header, before allocating its pixels', () => {
    const forged = Buffer.from(png(4, 4));
    forged.writeUInt32BE(100_000, 16); // width
    forged.writeUInt32BE(100_000, 20); // height: 10^10 pixels, 40 GB of RGBA
    const error = refusal(() => annotateSnapshot(forged, [person]));
    expect(error.message).toMatch(/10000000000 pixels/);
    expect(refusal(() => annotateSnapshot(png(100, 100), [], { maxPixels: 9_999 })).message).toMatch(
      /at most 9999/,
    );
  });

  it('refuses a non-array objects value and skips unusable objects', () => {
    expect(refusal(() => annotateSnapshot(png(8, 8), 'x' as unknown as DetectedObject[])).parameter).toBe(
      'objects',
    );
    const result = annotateSnapshot(png(8, 8), [null, { box: 'x' }, person] as unknown as DetectedObject[]);
    expect(result.drawn).toBe(1);
  });

  it('validates every option, naming it', () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ format: 'gif' }, 'format'],
      [{ lineWidth: 0 }, 'lineWidth'],
      [{ lineWidth: 2.5 }, 'lineWidth'],
      [{ quality: 101 }, 'quality'],
      [{ fontScale: 'big' }, 'fontScale'],
      [{ labels: 'yes' }, 'labels'],
      [{ colors: { box: 'red' } }, 'colors.box'],
      [{ colors: { warning: '#12345' } }, 'colors.warning'],
      [{ maxPixels: -1 }, 'maxPixels'],
      [{ fileName: '' }, 'fileName'],
    ];
    for (const [options, parameter] of bad) {
      expect(refusal(() => resolveAnnotateOptions(options)).parameter, JSON.stringify(options)).toBe(
        parameter,
      );
    }
    expect(resolveAnnotateOptions({ format: 'jpg', fileName: '../x/event-9.jpeg' })).toMatchObject({
      format: 'jpeg',
      fileStem: 'event-9',
    });
  });
});

describe('annotateSnapshot output', () => {
  it('keeps the input format by default, converts on request and names the file', () => {
    const input = png(64, 48);
    const same = annotateSnapshot(input, [person], { fileName: 'event-7.png' });
    expect(same).toMatchObject({
      contentType: 'image/png',
      width: 64,
      height: 48,
      fileName: 'event-7-annotated.png',
    });
    const asJpeg = annotateSnapshot(input, [person], { format: 'jpeg', quality: 50 });
    expect(asJpeg.contentType).toBe('image/jpeg');
    expect(asJpeg.fileName).toBe('snapshot-annotated.jpg');
    expect(jpeg.decode(asJpeg.data)).toMatchObject({ width: 64, height: 48 });
    const back = annotateSnapshot(asJpeg.data, [person], { format: 'png' });
    expect(PNG.sync.read(back.data)).toMatchObject({ width: 64, height: 48 });
  });

  it('keeps an alpha channel when the PNG had one', () => {
    const result = annotateSnapshot(png(16, 16, true), [person]);
    const decoded = PNG.sync.read(result.data);
    expect(decoded.alpha).toBe(true);
    expect(decoded.data[3]).toBe(128); // untouched corner keeps its transparency
    expect(PNG.sync.read(annotateSnapshot(png(16, 16), [person]).data).alpha).toBe(false);
  });

  it('returns the original bytes when nothing is drawn and the format stays', () => {
    const input = png(16, 16);
    const result = annotateSnapshot(input, [{ ...person, box: { cx: 5, cy: 5, w: 0.1, h: 0.1 } }]);
    expect(result.drawn).toBe(0);
    expect(result.data.equals(input)).toBe(true);
    expect(result.data).not.toBe(input);
  });
});

describe('maxWidth: a thumbnail of the annotated image', () => {
  it('scales the drawn image down, shape kept, averaging the pixels it covers', () => {
    const width = 640;
    const height = 360;
    const data = new Uint8Array(width * height * 4);
    // Left half black, right half white: a scaled image keeps the halves (and greys the seam).
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const at = (y * width + x) * 4;
        const value = x < width / 2 ? 0 : 255;
        data.set([value, value, value, 255], at);
      }
    const png = encodeImage({ width, height, data }, 'png', { quality: 85, alpha: false });
    const thumb = annotateSnapshot(png, [], { maxWidth: 160, format: 'png' });
    expect([thumb.width, thumb.height]).toEqual([160, 90]);
    const decoded = decodeImage(thumb.data, 1_000_000);
    const pixel = (x: number, y: number) => decoded.data[(y * 160 + x) * 4];
    expect([pixel(10, 45), pixel(150, 45)]).toEqual([0, 255]);
    expect(thumb.data.length).toBeLessThan(png.length);
    // Not wider than asked only: a smaller image is not scaled up.
    expect(annotateSnapshot(png, [], { maxWidth: 4096 }).width).toBe(640);
    expect(() => annotateSnapshot(png, [], { maxWidth: 4 })).toThrow(/Invalid maxWidth/);
  });
});
