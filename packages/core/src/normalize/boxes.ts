import type { NormalizedBox } from '../model/observation-event.js';

/** A box in pixels: top-left corner plus size, as canvas and most drawing APIs take it. */
export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Corners, normalized like the input box: top-left (x1, y1) and bottom-right (x2, y2). */
export interface CornerBox {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Scales a normalized `[cx, cy, w, h]` box to pixels for an image of `width` × `height`. */
export function toPixelBox(box: NormalizedBox, width: number, height: number): PixelBox {
  return {
    x: (box.cx - box.w / 2) * width,
    y: (box.cy - box.h / 2) * height,
    width: box.w * width,
    height: box.h * height,
  };
}

/** Converts a centre box to corners, still normalized (not clamped to 0..1). */
export function toCornerBox(box: NormalizedBox): CornerBox {
  return { x1: box.cx - box.w / 2, y1: box.cy - box.h / 2, x2: box.cx + box.w / 2, y2: box.cy + box.h / 2 };
}
