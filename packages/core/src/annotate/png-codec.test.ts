import { zlibSync } from 'fflate/browser';
import { PNG } from 'pngjs';
import { describe, expect, test } from 'vitest';
import { decodePng, encodePng } from './png-codec.js';

// pngjs (a test dependency only) is the independent reference: files it writes must decode to
// the pixels it reads back, and files this codec writes must read back in pngjs unchanged.

function pattern(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = (i * 37) & 0xff;
    data[i * 4 + 1] = (i * 11 + 90) & 0xff;
    data[i * 4 + 2] = (i * 5) & 0xff;
    data[i * 4 + 3] = i % 3 === 0 ? 255 : (i * 29) & 0xff;
  }
  return data;
}

describe('PNG decoding matches pngjs', () => {
  const cases = [
    { colorType: 6, bitDepth: 8 },
    { colorType: 2, bitDepth: 8 },
    { colorType: 0, bitDepth: 8 },
    { colorType: 4, bitDepth: 8 },
    { colorType: 6, bitDepth: 16 },
    { colorType: 0, bitDepth: 16 },
  ] as const;
  for (const { colorType, bitDepth } of cases) {
    test(`colour type ${colorType}, ${bitDepth} bits`, () => {
      const png = new PNG({ width: 13, height: 7, colorType, bitDepth, inputHasAlpha: true });
      png.data = pattern(13, 7);
      const file = PNG.sync.write(png, { colorType, bitDepth, inputHasAlpha: true });
      const reference = PNG.sync.read(file);
      const ours = decodePng(file);
      expect([ours.width, ours.height]).toEqual([13, 7]);
      expect(ours.alpha).toBe(colorType === 4 || colorType === 6);
      // 16-bit samples come down to 8 bits: this codec keeps the high byte, pngjs rounds, so
      // they may differ by one step there; 8-bit files must match exactly.
      const tolerance = bitDepth === 16 ? 1 : 0;
      const worst = ours.data.reduce(
        (max, value, i) => Math.max(max, Math.abs(value - (reference.data[i] as number))),
        0,
      );
      expect(ours.data.length).toBe(reference.data.length);
      expect(worst).toBeLessThanOrEqual(tolerance);
    });
  }
});

test('encoded RGBA and RGB files read back in pngjs with the same pixels', () => {
  const data = pattern(31, 17);
  const rgba = PNG.sync.read(Buffer.from(encodePng({ width: 31, height: 17, data }, true)));
  expect(rgba.data.equals(data)).toBe(true);
  const rgb = PNG.sync.read(Buffer.from(encodePng({ width: 31, height: 17, data }, false)));
  const opaque = Buffer.from(data);
  for (let i = 3; i < opaque.length; i += 4) opaque[i] = 255;
  expect(rgb.data.equals(opaque)).toBe(true);
});

test('an interlaced (Adam7) file decodes to the same pixels as its plain twin', () => {
  // pngjs cannot write Adam7, so the interlaced file is built here from the plain one's pixels.
  const width = 11;
  const height = 9;
  const data = pattern(width, height);
  const passes = [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ];
  const rows: number[] = [];
  for (const [x0, y0, dx, dy] of passes as Array<[number, number, number, number]>) {
    for (let y = y0; y < height; y += dy) {
      if (x0 >= width) break;
      rows.push(0);
      for (let x = x0; x < width; x += dx)
        rows.push(...data.subarray((y * width + x) * 4, (y * width + x) * 4 + 4));
    }
  }
  const plain = encodePng({ width, height, data }, true);
  const idat = zlibSync(Uint8Array.from(rows));
  const interlaced = rebuild(plain, idat);
  expect(Buffer.from(decodePng(interlaced).data).equals(data)).toBe(true);
});

/** The plain file with its IDAT replaced and IHDR's interlace flag set (checksums recomputed). */
function rebuild(plain: Uint8Array, idat: Uint8Array): Uint8Array {
  const header = Buffer.from(plain.subarray(16, 29));
  header[12] = 1;
  const chunk = (type: string, body: Uint8Array) => {
    const png = Buffer.alloc(body.length + 12);
    png.writeUInt32BE(body.length, 0);
    png.write(type, 4, 'latin1');
    Buffer.from(body).copy(png, 8);
    png.writeUInt32BE(crc(png.subarray(4, 8 + body.length)), 8 + body.length);
    return png;
  };
  return Buffer.concat([
    Buffer.from(plain.subarray(0, 8)),
    chunk('IHDR', header),
    chunk('IDAT', idat),
    chunk('IEND', new Uint8Array()),
  ]);
}

function crc(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

test('a damaged file is reported with what is wrong, never decoded to garbage', () => {
  const file = Buffer.from(encodePng({ width: 4, height: 4, data: pattern(4, 4) }, true));
  const flipped = Buffer.from(file);
  flipped[40] = (flipped[40] as number) ^ 0xff;
  expect(() => decodePng(flipped)).toThrow(/checksum/);
  expect(() => decodePng(file.subarray(0, file.length - 12))).toThrow(/IEND/);
  expect(() => decodePng(Buffer.from('not a png at all'))).toThrow(/not a PNG/);
});
