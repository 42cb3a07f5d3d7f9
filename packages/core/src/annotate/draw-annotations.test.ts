import { pixelBox } from '@observation-service/simulator';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DetectedObject } from '../model/observation-event.js';
import { boxToPixels, drawAnnotations, labelText, warningLineWidth } from './draw-annotations.js';
import type { RgbaImage } from './raster.js';

const amber = [250, 204, 21] as const;
const red = [255, 23, 68] as const;
const style = {
  lineWidth: 2,
  warningLineWidth: 3,
  fontScale: 1,
  labels: false,
  boxColour: amber,
  warningColour: red,
};

function blank(width: number, height: number): RgbaImage {
  return { width, height, data: new Uint8Array(width * height * 4) };
}

function at(image: RgbaImage, x: number, y: number): number[] {
  const offset = (y * image.width + x) * 4;
  return [...image.data.subarray(offset, offset + 3)];
}

function object(box: DetectedObject['box'], extra: Partial<DetectedObject> = {}): DetectedObject {
  return { objectId: '1', name: 'person', box, confidence: 0.87, warning: false, ...extra };
}

describe('box geometry', () => {
  it('rounds like the service draws its boxes (the simulator pixelBox), for any box inside the image', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 4000 }),
        fc.integer({ min: 1, max: 4000 }),
        (cx, cy, w, h, width, height) => {
          const ours = boxToPixels({ cx, cy, w, h }, width, height);
          const clip = (v: number, max: number) => Math.min(max, Math.max(0, v));
          const theirs = pixelBox([cx, cy, w, h], width, height);
          expect(ours).toBeDefined();
          if (!ours) return;
          expect({
            x0: clip(ours.x0, width),
            y0: clip(ours.y0, height),
            x1: clip(ours.x1, width),
            y1: clip(ours.y1, height),
          }).toEqual(theirs);
        },
      ),
    );
  });

  it('refuses non-finite numbers and orders swapped corners', () => {
    expect(boxToPixels({ cx: Number.NaN, cy: 0.5, w: 0.1, h: 0.1 }, 100, 100)).toBeUndefined();
    expect(boxToPixels({ cx: 0.5, cy: 0.5, w: Infinity, h: 0.1 }, 100, 100)).toBeUndefined();
    expect(boxToPixels({ cx: 0.5, cy: 0.5, w: -0.2, h: 0.2 }, 100, 100)).toEqual({
      x0: 40,
      y0: 40,
      x1: 60,
      y1: 60,
    });
  });

  it('makes warning outlines thicker', () => {
    for (const width of [1, 2, 3, 6, 64]) expect(warningLineWidth(width)).toBeGreaterThan(width);
  });
});

describe('labels', () => {
  it('shows the name and the confidence as a whole percentage', () => {
    expect(labelText({ name: 'person', confidence: 0.874 })).toBe('person 87%');
    expect(labelText({ name: 'car', confidence: 1 })).toBe('car 100%');
    expect(labelText({ name: ' ', confidence: 0.5 })).toBe('50%');
    expect(labelText({ name: 'x', confidence: 3 })).toBe('x 100%');
    expect(labelText({ name: 'x', confidence: -1 })).toBe('x 0%');
    expect(labelText({ name: 'x', confidence: Number.NaN })).toBe('x');
    expect(labelText({ name: 'a'.repeat(50), confidence: 0.5 })).toBe(`${'a'.repeat(28)}.. 50%`);
  });
});

describe('drawAnnotations', () => {
  it('outlines each box in its colour, warnings thicker, and leaves the rest alone', () => {
    const image = blank(100, 50);
    const drawn = drawAnnotations(
      image,
      [
        object({ cx: 0.2, cy: 0.5, w: 0.2, h: 0.4 }),
        object({ cx: 0.7, cy: 0.5, w: 0.2, h: 0.4 }, { warning: true }),
      ],
      style,
    );
    expect(drawn).toBe(2);
    // Ordinary box: x 10..29, y 15..34; outline 2 px.
    expect(at(image, 10, 20)).toEqual([...amber]);
    expect(at(image, 11, 20)).toEqual([...amber]);
    expect(at(image, 12, 20)).toEqual([0, 0, 0]);
    // Warning box: x 60..79; outline 3 px in red.
    expect(at(image, 62, 20)).toEqual([...red]);
    expect(at(image, 63, 20)).toEqual([0, 0, 0]);
    expect(at(image, 45, 5)).toEqual([0, 0, 0]);
  });

  it('clips boxes reaching outside, skips boxes wholly outside and unusable entries without throwing', () => {
    const image = blank(40, 40);
    const odd = [
      null,
      42,
      { name: 'no box' },
      { box: null },
      { box: { cx: 'a', cy: 0.5, w: 0.1, h: 0.1 } },
      object({ cx: 2, cy: 2, w: 0.5, h: 0.5 }),
      object({ cx: 0, cy: 0, w: 0.5, h: 0.5 }),
    ];
    const drawn = drawAnnotations(image, odd, style);
    expect(drawn).toBe(1);
    // The box covers -10..10: only its right and bottom sides are inside.
    expect(at(image, 9, 5)).toEqual([...amber]);
    expect(at(image, 5, 9)).toEqual([...amber]);
    expect(at(image, 30, 30)).toEqual([0, 0, 0]);
  });

  it('draws labels above the box in the box colour, inside the image when there is no room', () => {
    const image = blank(200, 100);
    drawAnnotations(image, [object({ cx: 0.5, cy: 0.6, w: 0.2, h: 0.2 })], { ...style, labels: true });
    // Box y 50..69; label 11 px tall just above it (y 39..49), starting at the box's left edge x=80.
    expect(at(image, 80, 39)).toEqual([...amber]);
    expect(at(image, 80, 38)).toEqual([0, 0, 0]);
    const top = blank(200, 100);
    drawAnnotations(top, [object({ cx: 0.95, cy: 0.05, w: 0.1, h: 0.1 }, { warning: true })], {
      ...style,
      labels: true,
    });
    // The label would leave the image on the right and at the top: it is moved in.
    expect(at(top, 199, 0)).toEqual([...red]);
  });
});
