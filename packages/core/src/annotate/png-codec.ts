import { unzlibSync, zlibSync } from 'fflate/browser';

/**
 * PNG decoding and encoding in plain JavaScript: no Node built-in (pngjs needs `zlib` and
 * `stream`), so annotated snapshots work in hosts that allow none, such as n8n Cloud. The zlib
 * streams go through fflate's browser build (pure JS, synchronous calls only, no workers).
 * Decoding covers every colour type, bit depth and Adam7 interlacing of the PNG spec; encoding
 * writes 8-bit RGB or RGBA.
 */

export interface PngImage {
  width: number;
  height: number;
  /** RGBA, 8 bits per channel, rows top to bottom. */
  data: Uint8Array;
  /** The file had an alpha channel (or a transparency chunk). */
  alpha: boolean;
}

const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array, start: number, end: number): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = (crcTable[(c ^ (bytes[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function readU32(bytes: Uint8Array, at: number): number {
  return (
    (((bytes[at] as number) << 24) |
      ((bytes[at + 1] as number) << 16) |
      ((bytes[at + 2] as number) << 8) |
      (bytes[at + 3] as number)) >>>
    0
  );
}

function writeU32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24;
  bytes[at + 1] = (value >>> 16) & 0xff;
  bytes[at + 2] = (value >>> 8) & 0xff;
  bytes[at + 3] = value & 0xff;
}

interface Header {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
}

/** Samples per pixel of each colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA). */
const channelsOf: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const depthsOf: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/** Width and height of the file, read from IHDR (the first chunk) without decoding anything. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  if (bytes.length < 24) throw new Error('the file ends inside its header');
  return { width: readU32(bytes, 16), height: readU32(bytes, 20) };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Reverses the per-row filters in place; returns the unfiltered rows (filter bytes dropped). */
function unfilter(raw: Uint8Array, at: number, rowBytes: number, rows: number, bpp: number): Uint8Array {
  const out = new Uint8Array(rowBytes * rows);
  for (let y = 0; y < rows; y++) {
    const filter = raw[at + y * (rowBytes + 1)];
    const src = at + y * (rowBytes + 1) + 1;
    const row = y * rowBytes;
    const prev = row - rowBytes;
    if (src + rowBytes > raw.length) throw new Error('the image data ends early');
    for (let x = 0; x < rowBytes; x++) {
      const value = raw[src + x] as number;
      const left = x >= bpp ? (out[row + x - bpp] as number) : 0;
      const up = y > 0 ? (out[prev + x] as number) : 0;
      const upLeft = y > 0 && x >= bpp ? (out[prev + x - bpp] as number) : 0;
      let result: number;
      switch (filter) {
        case 0:
          result = value;
          break;
        case 1:
          result = value + left;
          break;
        case 2:
          result = value + up;
          break;
        case 3:
          result = value + ((left + up) >> 1);
          break;
        case 4:
          result = value + paeth(left, up, upLeft);
          break;
        default:
          throw new Error(`unknown row filter ${filter}`);
      }
      out[row + x] = result & 0xff;
    }
  }
  return out;
}

interface Palette {
  colors: Uint8Array | undefined;
  /** tRNS: alpha per palette entry, or the transparent grey/RGB sample value. */
  transparency: Uint8Array | undefined;
}

/** Writes the pixels of one (sub-)image into the RGBA output at the given grid. */
function expand(
  rows: Uint8Array,
  w: number,
  h: number,
  header: Header,
  palette: Palette,
  out: Uint8Array,
  place: (x: number, y: number) => number,
): void {
  const { bitDepth, colorType } = header;
  const channels = channelsOf[colorType] as number;
  const rowBytes = Math.ceil((w * channels * bitDepth) / 8);
  const max = (1 << bitDepth) - 1;
  const trns = palette.transparency;
  for (let y = 0; y < h; y++) {
    const row = y * rowBytes;
    for (let x = 0; x < w; x++) {
      const sample = (index: number): number => {
        if (bitDepth === 8) return rows[row + x * channels + index] as number;
        if (bitDepth === 16) return rows[row + (x * channels + index) * 2] as number;
        const bit = (x * channels + index) * bitDepth;
        const byte = rows[row + (bit >> 3)] as number;
        return (byte >> (8 - bitDepth - (bit & 7))) & max;
      };
      // Raw sample values (before scaling), for matching the tRNS key colour.
      const rawSample = (index: number): number =>
        bitDepth === 16
          ? ((rows[row + (x * channels + index) * 2] as number) << 8) |
            (rows[row + (x * channels + index) * 2 + 1] as number)
          : sample(index);
      const scale = (value: number): number => (bitDepth >= 8 ? value : Math.round((value * 255) / max));
      const o = place(x, y);
      let r: number;
      let g: number;
      let b: number;
      let a = 255;
      if (colorType === 3) {
        const index = sample(0);
        const colors = palette.colors;
        if (!colors || index * 3 + 2 >= colors.length) throw new Error(`palette index ${index} out of range`);
        r = colors[index * 3] as number;
        g = colors[index * 3 + 1] as number;
        b = colors[index * 3 + 2] as number;
        if (trns && index < trns.length) a = trns[index] as number;
      } else if (colorType === 0 || colorType === 4) {
        r = g = b = scale(sample(0));
        if (colorType === 4) a = sample(1);
        else if (
          trns &&
          trns.length >= 2 &&
          rawSample(0) === (((trns[0] as number) << 8) | (trns[1] as number))
        )
          a = 0;
      } else {
        r = sample(0);
        g = sample(1);
        b = sample(2);
        if (colorType === 6) a = sample(3);
        else if (
          trns &&
          trns.length >= 6 &&
          rawSample(0) === (((trns[0] as number) << 8) | (trns[1] as number)) &&
          rawSample(1) === (((trns[2] as number) << 8) | (trns[3] as number)) &&
          rawSample(2) === (((trns[4] as number) << 8) | (trns[5] as number))
        )
          a = 0;
      }
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
      out[o + 3] = a;
    }
  }
}

/** Adam7: start column, start row, column step, row step of each pass. */
const adam7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** Decodes a PNG file into RGBA pixels. Throws an Error naming what is wrong with a damaged file. */
export function decodePng(bytes: Uint8Array): PngImage {
  if (bytes.length < 8 || !signature.every((b, i) => bytes[i] === b)) throw new Error('not a PNG file');
  let header: Header | undefined;
  const palette: Palette = { colors: undefined, transparency: undefined };
  const idat: Uint8Array[] = [];
  let at = 8;
  let ended = false;
  while (at + 8 <= bytes.length) {
    const length = readU32(bytes, at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const start = at + 8;
    const end = start + length;
    if (end + 4 > bytes.length) throw new Error(`the ${type} chunk is cut off`);
    if (crc32(bytes, at + 4, end) !== readU32(bytes, end))
      throw new Error(`the ${type} chunk has a wrong checksum`);
    const body = bytes.subarray(start, end);
    if (type === 'IHDR') {
      if (length < 13) throw new Error('the IHDR chunk is too short');
      header = {
        width: readU32(body, 0),
        height: readU32(body, 4),
        bitDepth: body[8] as number,
        colorType: body[9] as number,
        interlaced: body[12] === 1,
      };
    } else if (type === 'PLTE') palette.colors = body;
    else if (type === 'tRNS') palette.transparency = body;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') {
      ended = true;
      break;
    }
    at = end + 4;
  }
  if (!header) throw new Error('the file has no IHDR chunk');
  if (!ended) throw new Error('the file ends before its IEND chunk');
  const { width, height, bitDepth, colorType } = header;
  if (!depthsOf[colorType]?.includes(bitDepth)) {
    throw new Error(`colour type ${colorType} with bit depth ${bitDepth} is not valid PNG`);
  }
  if (width === 0 || height === 0) throw new Error('the image has no pixels');
  const joined = new Uint8Array(idat.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of idat) {
    joined.set(part, offset);
    offset += part.length;
  }
  const raw = unzlibSync(joined);
  const channels = channelsOf[colorType] as number;
  const bpp = Math.max(1, Math.ceil((channels * bitDepth) / 8));
  const out = new Uint8Array(width * height * 4);
  if (!header.interlaced) {
    const rowBytes = Math.ceil((width * channels * bitDepth) / 8);
    const rows = unfilter(raw, 0, rowBytes, height, bpp);
    expand(rows, width, height, header, palette, out, (x, y) => (y * width + x) * 4);
  } else {
    let position = 0;
    for (const [x0, y0, dx, dy] of adam7) {
      const w = Math.ceil((width - x0) / dx);
      const h = Math.ceil((height - y0) / dy);
      if (w <= 0 || h <= 0) continue;
      const rowBytes = Math.ceil((w * channels * bitDepth) / 8);
      const rows = unfilter(raw, position, rowBytes, h, bpp);
      position += (rowBytes + 1) * h;
      expand(rows, w, h, header, palette, out, (x, y) => ((y0 + y * dy) * width + x0 + x * dx) * 4);
    }
  }
  const alpha = colorType === 4 || colorType === 6 || palette.transparency !== undefined;
  return { width, height, data: out, alpha };
}

function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 12);
  writeU32(out, 0, body.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  writeU32(out, 8 + body.length, crc32(out, 4, 8 + body.length));
  return out;
}

/**
 * Filters every row with the filter whose output has the smallest sum of absolute values (the
 * PNG spec's recommended heuristic), which keeps the deflated size close to pngjs's.
 */
function filterRows(pixels: Uint8Array, rowBytes: number, rows: number, bpp: number): Uint8Array {
  const out = new Uint8Array((rowBytes + 1) * rows);
  const candidate = new Uint8Array(rowBytes);
  for (let y = 0; y < rows; y++) {
    const row = y * rowBytes;
    let bestSum = Number.POSITIVE_INFINITY;
    const target = y * (rowBytes + 1);
    for (let filter = 0; filter <= 4; filter++) {
      let sum = 0;
      for (let x = 0; x < rowBytes; x++) {
        const value = pixels[row + x] as number;
        const left = x >= bpp ? (pixels[row + x - bpp] as number) : 0;
        const up = y > 0 ? (pixels[row - rowBytes + x] as number) : 0;
        const upLeft = y > 0 && x >= bpp ? (pixels[row - rowBytes + x - bpp] as number) : 0;
        const predicted =
          filter === 0
            ? 0
            : filter === 1
              ? left
              : filter === 2
                ? up
                : filter === 3
                  ? (left + up) >> 1
                  : paeth(left, up, upLeft);
        const byte = (value - predicted) & 0xff;
        candidate[x] = byte;
        sum += byte < 128 ? byte : 256 - byte;
      }
      if (sum < bestSum) {
        bestSum = sum;
        out[target] = filter;
        out.set(candidate, target + 1);
      }
    }
  }
  return out;
}

/** Encodes RGBA pixels as an 8-bit PNG: RGBA when `alpha`, otherwise RGB (alpha dropped). */
export function encodePng(
  image: { width: number; height: number; data: Uint8Array },
  alpha: boolean,
): Uint8Array {
  const { width, height, data } = image;
  const channels = alpha ? 4 : 3;
  const pixels = alpha ? data : new Uint8Array(width * height * 3);
  if (!alpha) {
    for (let i = 0, j = 0; i < width * height * 4; i += 4, j += 3) {
      pixels[j] = data[i] as number;
      pixels[j + 1] = data[i + 1] as number;
      pixels[j + 2] = data[i + 2] as number;
    }
  }
  const header = new Uint8Array(13);
  writeU32(header, 0, width);
  writeU32(header, 4, height);
  header[8] = 8;
  header[9] = alpha ? 6 : 2;
  const compressed = zlibSync(filterRows(pixels, width * channels, height, channels), { level: 6 });
  const parts = [
    Uint8Array.from(signature),
    chunk('IHDR', header),
    chunk('IDAT', compressed),
    chunk('IEND', new Uint8Array()),
  ];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
