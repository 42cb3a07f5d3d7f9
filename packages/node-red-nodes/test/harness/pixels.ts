import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/** Decoded RGBA pixels of a PNG or JPEG. */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Decodes PNG or JPEG bytes (pngjs and jpeg-js: the codecs core draws with). */
export function decodeImage(bytes: Buffer): Pixels {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return PNG.sync.read(bytes);
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return jpeg.decode(bytes, { useTArray: true });
  throw new Error(`not a PNG or JPEG: ${bytes.subarray(0, 8).toString('hex')}`);
}

/** A box as events carry it: centre and size, normalized to the image. */
export interface NormalizedBox {
  cx: number;
  cy: number;
  w: number;
  h: number;
}

/** Pixels of the box's outline that lie inside the image (where the box is drawn). */
export function outline(box: NormalizedBox, image: Pixels): Array<[number, number]> {
  const x0 = Math.round((box.cx - box.w / 2) * image.width);
  const x1 = Math.round((box.cx + box.w / 2) * image.width);
  const y0 = Math.round((box.cy - box.h / 2) * image.height);
  const y1 = Math.round((box.cy + box.h / 2) * image.height);
  const out: Array<[number, number]> = [];
  for (let y = Math.max(0, y0); y < Math.min(image.height, y1); y++) {
    if (x0 >= 0) out.push([x0, y]);
    if (x1 <= image.width) out.push([x1 - 1, y]);
  }
  for (let x = Math.max(0, x0); x < Math.min(image.width, x1); x++) {
    if (y0 >= 0) out.push([x, y0]);
    if (y1 <= image.height) out.push([x, y1 - 1]);
  }
  return out;
}

/** Largest channel difference (RGB) between the two images at (x, y). */
export function difference(a: Pixels, b: Pixels, x: number, y: number): number {
  const offset = (y * a.width + x) * 4;
  let max = 0;
  for (let channel = 0; channel < 3; channel++) {
    max = Math.max(max, Math.abs((a.data[offset + channel] ?? 0) - (b.data[offset + channel] ?? 0)));
  }
  return max;
}

/** Share (0..1) of the given pixels that differ by more than `tolerance`. */
export function changedShare(a: Pixels, b: Pixels, points: Array<[number, number]>, tolerance = 0): number {
  if (points.length === 0) return 0;
  return points.filter(([x, y]) => difference(a, b, x, y) > tolerance).length / points.length;
}

/** Share (0..1) of all pixels, sampled every `step` pixels, that differ by more than `tolerance`. */
export function changedOverall(a: Pixels, b: Pixels, tolerance = 0, step = 2): number {
  const points: Array<[number, number]> = [];
  for (let y = 0; y < a.height; y += step) for (let x = 0; x < a.width; x += step) points.push([x, y]);
  return changedShare(a, b, points, tolerance);
}
