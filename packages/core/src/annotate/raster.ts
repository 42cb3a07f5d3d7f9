import { glyphHeight, glyphPixel, glyphWidth } from './bitmap-font.js';

/** Decoded pixels: 4 bytes (R, G, B, A) per pixel, rows top to bottom. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

export type Rgb = readonly [number, number, number];

/** A pixel rectangle: x0, y0 inclusive, x1, y1 exclusive (may reach outside the image). */
export interface PixelRect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The part of `rect` inside the image; empty (x0 >= x1 or y0 >= y1) when none is. */
export function clipRect(rect: PixelRect, width: number, height: number): PixelRect {
  return {
    x0: Math.max(0, rect.x0),
    y0: Math.max(0, rect.y0),
    x1: Math.min(width, rect.x1),
    y1: Math.min(height, rect.y1),
  };
}

export function isEmpty(rect: PixelRect): boolean {
  return rect.x0 >= rect.x1 || rect.y0 >= rect.y1;
}

/** Paints `rect` (clipped to the image) opaque in `colour`. */
export function fillRect(image: RgbaImage, rect: PixelRect, colour: Rgb): void {
  const clipped = clipRect(rect, image.width, image.height);
  if (isEmpty(clipped)) return;
  const { data, width } = image;
  for (let y = clipped.y0; y < clipped.y1; y++) {
    let offset = (y * width + clipped.x0) * 4;
    for (let x = clipped.x0; x < clipped.x1; x++) {
      data[offset] = colour[0];
      data[offset + 1] = colour[1];
      data[offset + 2] = colour[2];
      data[offset + 3] = 255;
      offset += 4;
    }
  }
}

/**
 * Draws the outline of `rect` `lineWidth` pixels thick, inside the rectangle, so a box touching
 * the image border stays fully visible. Each side is clipped on its own: a box partly outside the
 * image shows the sides that are inside.
 */
export function strokeRect(image: RgbaImage, rect: PixelRect, lineWidth: number, colour: Rgb): void {
  const { x0, y0, x1, y1 } = rect;
  if (x0 >= x1 || y0 >= y1) return;
  const t = Math.max(1, lineWidth);
  fillRect(image, { x0, y0, x1, y1: Math.min(y1, y0 + t) }, colour); // top
  fillRect(image, { x0, y0: Math.max(y0, y1 - t), x1, y1 }, colour); // bottom
  fillRect(image, { x0, y0, x1: Math.min(x1, x0 + t), y1 }, colour); // left
  fillRect(image, { x0: Math.max(x0, x1 - t), y0, x1, y1 }, colour); // right
}

/** Width in pixels of `text` in the bitmap font at `scale` (1 px between glyphs). */
export function textWidth(text: string, scale: number): number {
  return text.length === 0 ? 0 : (text.length * (glyphWidth + 1) - 1) * scale;
}

export const textHeight = (scale: number): number => glyphHeight * scale;

/** Draws `text` with its top-left corner at (x, y), clipped to the image. */
export function drawText(
  image: RgbaImage,
  text: string,
  x: number,
  y: number,
  scale: number,
  colour: Rgb,
): void {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const left = x + i * (glyphWidth + 1) * scale;
    if (left >= image.width) return;
    for (let row = 0; row < glyphHeight; row++) {
      for (let column = 0; column < glyphWidth; column++) {
        if (!glyphPixel(code, column, row)) continue;
        const px = left + column * scale;
        const py = y + row * scale;
        fillRect(image, { x0: px, y0: py, x1: px + scale, y1: py + scale }, colour);
      }
    }
  }
}

/**
 * The image scaled down to `width` pixels wide (its shape kept), each output pixel the average of
 * the source pixels it covers: a thumbnail without the aliasing of picking every n-th pixel.
 */
export function scaleDown(image: RgbaImage, width: number): RgbaImage {
  if (width >= image.width) return image;
  const height = Math.max(1, Math.round((image.height * width) / image.width));
  const data = new Uint8Array(width * height * 4);
  const xs = image.width / width;
  const ys = image.height / height;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * ys);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * ys));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * xs);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * xs));
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = y0; sy < y1; sy++) {
        let at = (sy * image.width + x0) * 4;
        for (let sx = x0; sx < x1; sx++, at += 4) {
          r += image.data[at] as number;
          g += image.data[at + 1] as number;
          b += image.data[at + 2] as number;
          a += image.data[at + 3] as number;
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const out = (y * width + x) * 4;
      data[out] = r / n;
      data[out + 1] = g / n;
      data[out + 2] = b / n;
      data[out + 3] = a / n;
    }
  }
  return { width, height, data };
}
