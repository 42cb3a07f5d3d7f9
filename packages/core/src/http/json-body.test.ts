import { describe, expect, it, vi } from 'vitest';
import { countArrayElements, isAscii, parseArrayInPieces, parseJsonBody } from './json-body.js';

const encode = (text: string) => new TextEncoder().encode(text);

/** A history-like element whose strings hold what could mislead a cut: commas, brackets, quotes, escapes, accents. */
function element(index: number) {
  return {
    id: index,
    event_name: index % 3 === 0 ? 'café, "crowd" [zone 2] {north}' : 'person',
    note: index % 5 === 0 ? 'ends with a backslash \\' : '人が集まっています,],}',
    detected_objects: [
      { object_id: `${index}`, coordinates: [0.1, 0.2, 0.3, 0.4], warning: index % 2 === 0 },
    ],
    vlm: { 'Scene description': 'x'.repeat(index % 700), nested: [[1, [2]], { a: [] }] },
  };
}

/** A small deterministic generator (the same cases on every run). */
function random(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % below;
  };
}

function randomValue(next: (below: number) => number, depth: number): unknown {
  const kind = next(depth > 3 ? 4 : 7);
  if (kind === 0) return next(1_000_000) / 7;
  if (kind === 1) return ['', ',', ']', '}', '"', '\\', 'é', '😀', '\\"', 'a,b'][next(10)] ?? '';
  if (kind === 2) return next(2) === 0;
  if (kind === 3) return null;
  if (kind === 4) return Array.from({ length: next(4) }, () => randomValue(next, depth + 1));
  const object: Record<string, unknown> = {};
  for (let key = next(5); key > 0; key--) object[`k,${key}]`] = randomValue(next, depth + 1);
  return object;
}

describe('parseJsonBody', () => {
  it('parses a large array in pieces to the same value as one JSON.parse', () => {
    const page = Array.from({ length: 400 }, (_, index) => element(index));
    for (const body of [JSON.stringify(page), JSON.stringify(page, null, 2)]) {
      expect(body.length).toBeGreaterThan(100_000);
      const expected = JSON.parse(body);
      const parse = vi.spyOn(JSON, 'parse');
      try {
        expect(parseArrayInPieces(encode(body))).toEqual(expected);
        // One parse per piece of about 32 KB: the point is that no piece is a large string.
        expect(parse.mock.calls.length).toBeGreaterThanOrEqual(Math.floor(body.length / 40_000));
        expect(Math.max(...parse.mock.calls.map(([text]) => text.length))).toBeLessThan(40_000);
      } finally {
        parse.mockRestore();
      }
      expect(parseJsonBody(encode(body))).toEqual(JSON.parse(body));
    }
  });

  it('agrees with JSON.parse on random large arrays of random values', () => {
    for (const seed of [1, 2, 3, 4]) {
      const next = random(seed);
      const body = JSON.stringify(Array.from({ length: 3_000 }, () => randomValue(next, 0)));
      expect(body.length).toBeGreaterThan(40_000);
      expect(parseArrayInPieces(encode(body))).toEqual(JSON.parse(body));
      // Small pieces cut at almost every top-level comma: any misread string or bracket shows.
      for (const pieceBytes of [1, 50])
        expect(parseArrayInPieces(encode(body), pieceBytes)).toEqual(JSON.parse(body));
    }
  });

  it('cuts at the next element by its first key, also where nested objects and strings hold that key', () => {
    // Nested objects whose first key is the elements' own (a cut there would not parse), strings
    // holding the text of such a key, and elements of another shape after a while.
    const page = Array.from({ length: 600 }, (_, index) =>
      index > 450
        ? { other: index, text: 'ü' }
        : {
            id: index,
            parts: Array.from({ length: index % 4 }, (_, part) => ({ id: part, box: [part, { id: [] }] })),
            note: index % 7 === 0 ? ',{"id":1}, ],{"id":' : 'ü',
          },
    );
    const body = JSON.stringify(page);
    expect(body).toContain('},{"id":1,"box"');
    for (const pieceBytes of [1, 50, 700, 2_000, 32 * 1024])
      expect(parseArrayInPieces(encode(body), pieceBytes)).toEqual(page);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(parseArrayInPieces(encode(body), 2_000)).toEqual(page);
      // No piece much longer than asked for: each was cut at the first element past the mark.
      expect(Math.max(...parse.mock.calls.map(([text]) => text.length))).toBeLessThan(2_000 + 400);
    } finally {
      parse.mockRestore();
    }
  });

  it('reads a BOM, whitespace around the array and an element larger than a piece', () => {
    const big = { id: 1, vlm: 'ü'.repeat(100_000) };
    const body = `\uFEFF \n [ ${JSON.stringify(element(0))} , ${JSON.stringify(big)},\n${JSON.stringify(element(2))} ] \n`;
    expect(parseArrayInPieces(encode(body))).toEqual([element(0), big, element(2)]);
  });

  it('parses a large object or a small body whole', () => {
    const object = { items: Array.from({ length: 300 }, (_, index) => element(index)) };
    expect(parseArrayInPieces(encode(JSON.stringify(object)))).toBeUndefined();
    expect(parseJsonBody(encode(JSON.stringify(object)))).toEqual(object);
    expect(parseArrayInPieces(encode('[1,"é"]'))).toBeUndefined();
    expect(parseJsonBody(encode('[1,"é"]'))).toEqual([1, 'é']);
  });

  it('refuses what JSON.parse refuses: a stray comma, a missing bracket, trailing text', () => {
    const elements = Array.from({ length: 200 }, (_, index) => JSON.stringify(element(index)));
    const strayComma = `[${elements.slice(0, 100).join(',')},,${elements.slice(100).join(',')}]`;
    const unclosed = `[${elements.join(',')}`;
    const trailing = `[${elements.join(',')}] x`;
    const unbalanced = `[${elements.join(',')}]]`;
    for (const body of [strayComma, unclosed, trailing, unbalanced]) {
      expect(() => JSON.parse(body)).toThrow(SyntaxError);
      expect(parseArrayInPieces(encode(body))).toBeUndefined();
      expect(parseArrayInPieces(encode(body), 1)).toBeUndefined();
      expect(() => parseJsonBody(encode(body))).toThrow(SyntaxError);
    }
  });

  it('parses a large ASCII body with one JSON.parse, and one with a non-ASCII character in pieces', () => {
    const ascii = JSON.stringify(
      Array.from({ length: 400 }, (_, index) => ({ id: index, note: 'x'.repeat(300) })),
    );
    expect(ascii.length).toBeGreaterThan(100_000);
    const accented = ascii.replace('"note":"x', '"note":"é');
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(parseJsonBody(encode(ascii))).toEqual(JSON.parse(ascii));
      // The spy counts the expected value's own parse too: one more for the body.
      expect(parse).toHaveBeenCalledTimes(2);
      parse.mockClear();
      expect(parseJsonBody(encode(accented))).toEqual(JSON.parse(accented));
      expect(parse.mock.calls.length).toBeGreaterThan(3);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('isAscii', () => {
  it('finds a byte at or above 0x80 wherever it is, aligned or not', () => {
    const bytes = encode('a'.repeat(37));
    expect(isAscii(bytes)).toBe(true);
    for (let at = 0; at < bytes.length; at++) {
      const copy = bytes.slice();
      copy[at] = 0x80;
      // Views at every alignment of the same bytes.
      for (let offset = 0; offset < 4 && offset <= at; offset++)
        expect(isAscii(copy.subarray(offset))).toBe(false);
    }
    expect(isAscii(new Uint8Array())).toBe(true);
  });
});

describe('countArrayElements', () => {
  it('counts the elements of an array of objects in one shape without parsing it', () => {
    const page = Array.from({ length: 250 }, (_, index) => element(index));
    const text = JSON.stringify(page);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(countArrayElements(encode(text))).toBe(250);
      expect(countArrayElements(encode(` \n[${JSON.stringify(element(1))}]`))).toBe(1);
      expect(countArrayElements(encode('[]'))).toBe(0);
      expect(countArrayElements(encode('[ \n]'))).toBe(0);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('says nothing of what is not an array of objects whose first key is plain', () => {
    expect(countArrayElements(encode('{"id":1}'))).toBeUndefined();
    expect(countArrayElements(encode('[1,2,3]'))).toBeUndefined();
    expect(countArrayElements(encode('[{"i\\u0064":1},{"i\\u0064":2}]'))).toBeUndefined();
    expect(countArrayElements(encode(''))).toBeUndefined();
  });

  it('is a guess: an element nesting an object with the same first key counts twice, spaced elements once', () => {
    // Why the page iterator checks every count against the parsed page.
    expect(countArrayElements(encode('[{"id":1,"x":[0,{"id":2}]},{"id":3}]'))).toBe(3);
    expect(countArrayElements(encode('[{"id":1}, {"id":2}, {"id":3}]'))).toBe(1);
  });
});
