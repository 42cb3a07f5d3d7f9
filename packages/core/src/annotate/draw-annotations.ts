import type { DetectedObject } from '../model/observation-event.js';
import { toCornerBox } from '../normalize/boxes.js';
import {
  clipRect,
  drawText,
  fillRect,
  isEmpty,
  type PixelRect,
  type Rgb,
  type RgbaImage,
  strokeRect,
  textHeight,
  textWidth,
} from './raster.js';

export interface DrawStyle {
  lineWidth: number;
  warningLineWidth: number;
  fontScale: number;
  labels: boolean;
  boxColour: Rgb;
  warningColour: Rgb;
}

/** Defaults that grow with the image so boxes and labels stay readable on large snapshots. */
export function defaultLineWidth(width: number, height: number): number {
  return Math.max(2, Math.round(Math.min(width, height) / 180));
}

export function defaultFontScale(width: number, height: number): number {
  return Math.max(1, Math.round(Math.min(width, height) / 270));
}

/** Warning boxes are half again as thick (at least one pixel more). */
export function warningLineWidth(lineWidth: number): number {
  return Math.max(lineWidth + 1, Math.round(lineWidth * 1.5));
}

/**
 * The pixel rectangle of a normalized box, rounded like the service draws its boxes
 * (`round((cx − w/2)·width)` inclusive to `round((cx + w/2)·width)` exclusive), not yet clipped.
 * Undefined when the box has a non-finite number.
 */
export function boxToPixels(
  box: DetectedObject['box'],
  width: number,
  height: number,
): PixelRect | undefined {
  if (![box.cx, box.cy, box.w, box.h].every((n) => typeof n === 'number' && Number.isFinite(n))) {
    return undefined;
  }
  const corners = toCornerBox(box);
  const xa = Math.round(corners.x1 * width);
  const xb = Math.round(corners.x2 * width);
  const ya = Math.round(corners.y1 * height);
  const yb = Math.round(corners.y2 * height);
  // A negative size would swap the corners; draw the same rectangle either way.
  return { x0: Math.min(xa, xb), y0: Math.min(ya, yb), x1: Math.max(xa, xb), y1: Math.max(ya, yb) };
}

/** `person 87%`: the name (cut to 30 characters) and the confidence as a whole percentage. */
export function labelText(object: Pick<DetectedObject, 'name' | 'confidence'>): string {
  const rawName = typeof object.name === 'string' ? object.name.trim() : '';
  const name = rawName.length > 30 ? `${rawName.slice(0, 28)}..` : rawName;
  const confidence = object.confidence;
  if (typeof confidence !== 'number' || !Number.isFinite(confidence)) return name;
  const percent = `${Math.min(100, Math.max(0, Math.round(confidence * 100)))}%`;
  return name === '' ? percent : `${name} ${percent}`;
}

/** Black or white, whichever reads better on `background` (relative luminance). */
function textColourOn(background: Rgb): Rgb {
  const [r, g, b] = background;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 140 ? [0, 0, 0] : [255, 255, 255];
}

interface Placed {
  rect: PixelRect;
  object: DetectedObject;
}

/** A usable object: a record whose box has four finite numbers. Anything else is skipped, never thrown on. */
function readable(value: unknown): value is DetectedObject {
  if (value === null || typeof value !== 'object') return false;
  const box = (value as { box?: unknown }).box;
  return box !== null && typeof box === 'object';
}

/**
 * Draws every object's box, then every label, ordinary objects first so warning objects stay on
 * top where they overlap. Returns how many objects were at least partly inside the image.
 */
export function drawAnnotations(image: RgbaImage, objects: readonly unknown[], style: DrawStyle): number {
  const placed: Placed[] = [];
  for (const object of objects) {
    if (!readable(object)) continue;
    const rect = boxToPixels(object.box, image.width, image.height);
    if (rect === undefined || isEmpty(clipRect(rect, image.width, image.height))) continue;
    placed.push({ rect, object });
  }
  const ordered = [
    ...placed.filter((p) => p.object.warning !== true),
    ...placed.filter((p) => p.object.warning === true),
  ];
  for (const { rect, object } of ordered) {
    const warning = object.warning === true;
    strokeRect(
      image,
      rect,
      warning ? style.warningLineWidth : style.lineWidth,
      warning ? style.warningColour : style.boxColour,
    );
  }
  if (style.labels) {
    for (const { rect, object } of ordered) {
      drawLabel(
        image,
        rect,
        labelText(object),
        object.warning === true ? style.warningColour : style.boxColour,
        style.fontScale,
      );
    }
  }
  return placed.length;
}

/** A filled tag above the box (inside its top edge when there is no room above), kept inside the image. */
function drawLabel(image: RgbaImage, box: PixelRect, text: string, colour: Rgb, scale: number): void {
  if (text === '') return;
  const pad = scale + 1;
  const width = textWidth(text, scale) + 2 * pad;
  const height = textHeight(scale) + 2 * pad;
  const x = Math.max(0, Math.min(box.x0, image.width - width));
  let y = box.y0 - height >= 0 ? box.y0 - height : Math.max(0, box.y0);
  y = Math.max(0, Math.min(y, image.height - height));
  fillRect(image, { x0: x, y0: y, x1: x + width, y1: y + height }, colour);
  drawText(image, text, x + pad, y + pad, scale, textColourOn(colour));
}
