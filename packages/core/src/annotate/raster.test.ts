import { describe, expect, it } from 'vitest';
import { glyphHeight, glyphPixel, glyphWidth } from './bitmap-font.js';
import { clipRect, drawText, fillRect, type RgbaImage, strokeRect, textWidth } from './raster.js';

function blank(width: number, height: number): RgbaImage {
  return { width, height, data: new Uint8Array(width * height * 4) };
}

/** The image as rows of '#' (red channel set) and '.', for readable assertions. */
function picture(image: RgbaImage): string[] {
  const rows: string[] = [];
  for (let y = 0; y < image.height; y++) {
    let row = '';
    for (let x = 0; x < image.width; x++) row += image.data[(y * image.width + x) * 4] === 0 ? '.' : '#';
    rows.push(row);
  }
  return rows;
}

const red = [255, 0, 0] as const;

describe('rectangles', () => {
  it('fills exactly x0..x1-1 × y0..y1-1, opaque', () => {
    const image = blank(5, 4);
    fillRect(image, { x0: 1, y0: 1, x1: 3, y1: 3 }, red);
    expect(picture(image)).toEqual(['.....', '.##..', '.##..', '.....']);
    expect(image.data[(1 * 5 + 1) * 4 + 3]).toBe(255);
  });

  it('clips rectangles partly or wholly outside the image, without writing out of bounds', () => {
    const image = blank(4, 3);
    fillRect(image, { x0: -5, y0: -5, x1: 2, y1: 1 }, red);
    fillRect(image, { x0: 3, y0: 2, x1: 100, y1: 100 }, red);
    fillRect(image, { x0: 10, y0: 10, x1: 20, y1: 20 }, red);
    fillRect(image, { x0: -Infinity, y0: 1, x1: -1, y1: 2 }, red);
    expect(picture(image)).toEqual(['##..', '....', '...#']);
    expect(image.data.length).toBe(4 * 3 * 4);
    expect(clipRect({ x0: -1, y0: -2, x1: 9, y1: 9 }, 4, 3)).toEqual({ x0: 0, y0: 0, x1: 4, y1: 3 });
  });

  it('strokes the outline inside the rectangle with the given thickness', () => {
    const image = blank(8, 7);
    strokeRect(image, { x0: 1, y0: 1, x1: 7, y1: 6 }, 2, red);
    expect(picture(image)).toEqual([
      '........',
      '.######.',
      '.######.',
      '.##..##.',
      '.######.',
      '.######.',
      '........',
    ]);
  });

  it('a box partly outside shows only its inside sides; a box thinner than two lines is filled', () => {
    const image = blank(6, 5);
    strokeRect(image, { x0: 3, y0: -3, x1: 9, y1: 3 }, 1, red);
    expect(picture(image)).toEqual(['...#..', '...#..', '...###', '......', '......']);
    const small = blank(4, 4);
    strokeRect(small, { x0: 1, y0: 1, x1: 3, y1: 3 }, 3, red);
    expect(picture(small)).toEqual(['....', '.##.', '.##.', '....']);
  });
});

describe('bitmap font', () => {
  const glyph = (code: number): string =>
    Array.from({ length: glyphHeight }, (_, row) =>
      Array.from({ length: glyphWidth }, (_, column) => (glyphPixel(code, column, row) ? '#' : '.')).join(''),
    ).join('/');

  it('has a distinct glyph for every printable ASCII character, blank only for space', () => {
    const seen = new Map<string, string>();
    for (let code = 33; code <= 126; code++) {
      const pattern = glyph(code);
      expect(pattern, String.fromCharCode(code)).toContain('#');
      expect(
        seen.get(pattern),
        `${String.fromCharCode(code)} looks like ${seen.get(pattern)}`,
      ).toBeUndefined();
      seen.set(pattern, String.fromCharCode(code));
    }
    expect(glyph(32)).not.toContain('#');
    expect(glyph('H'.charCodeAt(0))).toBe('#...#/#...#/#...#/#####/#...#/#...#/#...#');
  });

  it('draws characters outside the font as "?"', () => {
    expect(glyph('é'.charCodeAt(0))).toBe(glyph('?'.charCodeAt(0)));
    expect(glyph(0)).toBe(glyph('?'.charCodeAt(0)));
  });

  it('draws text at a scale, clipped at the image border', () => {
    const image = blank(12, 8);
    drawText(image, 'I', 0, 0, 1, red);
    expect(
      picture(image)
        .slice(0, 7)
        .map((row) => row.slice(0, 5)),
    ).toEqual(['.###.', '..#..', '..#..', '..#..', '..#..', '..#..', '.###.']);
    const scaled = blank(10, 14);
    drawText(scaled, 'I', 0, 0, 2, red);
    expect(picture(scaled)[0]).toBe('..######..');
    expect(picture(scaled)[13]).toBe('..######..');
    // Far past the right and bottom edges: nothing written, nothing thrown.
    const edge = blank(6, 6);
    drawText(edge, 'WWWWWWWW', 3, 3, 3, red);
    expect(edge.data.length).toBe(6 * 6 * 4);
    expect(textWidth('ab', 2)).toBe(22);
    expect(textWidth('', 2)).toBe(0);
  });
});
