/**
 * Draws an event snapshot: a plain background with one filled, outlined rectangle exactly where
 * each detected object's box is, so annotation code can be checked pixel by pixel.
 */
import type { DetectedObject } from '../types.js';
import { encodePng } from './png-encoder.js';

export const SNAPSHOT_WIDTH = 640;
export const SNAPSHOT_HEIGHT = 360;

type Rgb = readonly [number, number, number];

/** Colours of the snapshot, documented in the README for pixel checks. */
export const SNAPSHOT_COLOURS = {
  background: [32, 36, 44] as Rgb,
  objectFill: [20, 83, 45] as Rgb,
  objectOutline: [34, 197, 94] as Rgb,
  warningFill: [127, 29, 29] as Rgb,
  warningOutline: [239, 68, 68] as Rgb,
};

/** Outline thickness in pixels, drawn inside the box. */
export const OUTLINE_WIDTH = 2;

/** The pixel rectangle of a normalized [cx, cy, w, h] box: x0,y0 inclusive, x1,y1 exclusive, clipped to the image. */
export function pixelBox(
  coordinates: readonly [number, number, number, number],
  width = SNAPSHOT_WIDTH,
  height = SNAPSHOT_HEIGHT,
): { x0: number; y0: number; x1: number; y1: number } {
  const [cx, cy, w, h] = coordinates;
  const clip = (value: number, max: number) => Math.min(max, Math.max(0, Math.round(value)));
  return {
    x0: clip((cx - w / 2) * width, width),
    y0: clip((cy - h / 2) * height, height),
    x1: clip((cx + w / 2) * width, width),
    y1: clip((cy + h / 2) * height, height),
  };
}

export function renderSnapshot(
  objects: readonly DetectedObject[],
  width = SNAPSHOT_WIDTH,
  height = SNAPSHOT_HEIGHT,
): Buffer {
  const rgb = new Uint8Array(width * height * 3);
  fill(rgb, width, { x0: 0, y0: 0, x1: width, y1: height }, SNAPSHOT_COLOURS.background);
  for (const object of objects) {
    const box = pixelBox(object.coordinates, width, height);
    const outline = object.warning ? SNAPSHOT_COLOURS.warningOutline : SNAPSHOT_COLOURS.objectOutline;
    fill(rgb, width, box, outline);
    const inner = {
      x0: box.x0 + OUTLINE_WIDTH,
      y0: box.y0 + OUTLINE_WIDTH,
      x1: box.x1 - OUTLINE_WIDTH,
      y1: box.y1 - OUTLINE_WIDTH,
    };
    fill(rgb, width, inner, object.warning ? SNAPSHOT_COLOURS.warningFill : SNAPSHOT_COLOURS.objectFill);
  }
  return encodePng(width, height, rgb);
}

function fill(
  rgb: Uint8Array,
  width: number,
  box: { x0: number; y0: number; x1: number; y1: number },
  colour: Rgb,
): void {
  for (let y = box.y0; y < box.y1; y++) {
    for (let x = box.x0; x < box.x1; x++) {
      const offset = (y * width + x) * 3;
      rgb[offset] = colour[0];
      rgb[offset + 1] = colour[1];
      rgb[offset + 2] = colour[2];
    }
  }
}
