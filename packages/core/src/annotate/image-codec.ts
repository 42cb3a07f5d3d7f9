import * as jpeg from 'jpeg-js';
import { ValidationError } from '../errors/validation-error.js';
import { decodePng, encodePng, pngSize } from './png-codec.js';
import type { RgbaImage } from './raster.js';

export type ImageFormat = 'png' | 'jpeg';

export interface DecodedImage extends RgbaImage {
  format: ImageFormat;
  /** PNG only: the source had an alpha channel, so the output keeps one. */
  alpha: boolean;
}

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const allowed = 'a complete PNG or JPEG image';

/** The format from the file's first bytes (content types lie; magic numbers do not). */
export function sniffFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (bytes.length >= 8 && pngSignature.every((b, i) => bytes[i] === b)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return undefined;
}

function describeStart(bytes: Uint8Array): string {
  const hex = [...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  return bytes.length === 0 ? 'an empty buffer' : `${bytes.length} bytes starting with ${hex}`;
}

function undecodable(format: ImageFormat, cause: unknown): ValidationError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const error = new ValidationError(
    'image',
    `a ${format === 'png' ? 'PNG' : 'JPEG'} that cannot be decoded (${reason.slice(0, 120)})`,
    allowed,
  );
  // Keep the decoder's own error for debugging without changing ValidationError's constructor.
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false, configurable: true });
  return error;
}

/**
 * Decodes a PNG or JPEG into RGBA pixels. Throws a ValidationError (parameter `image`) for
 * anything else, a damaged file, or an image over `maxPixels` (checked before the pixels are
 * allocated, so a forged header cannot exhaust memory).
 */
export function decodeImage(bytes: Uint8Array, maxPixels: number): DecodedImage {
  const format = sniffFormat(bytes);
  if (format === undefined) throw new ValidationError('image', describeStart(bytes), allowed);
  if (format === 'png') {
    let size: { width: number; height: number };
    try {
      size = pngSize(bytes);
    } catch (error) {
      throw undecodable('png', error);
    }
    const pixels = size.width * size.height;
    if (pixels > maxPixels) throw tooLarge(pixels, maxPixels);
    try {
      const png = decodePng(bytes);
      return { format, width: png.width, height: png.height, data: png.data, alpha: png.alpha };
    } catch (error) {
      throw undecodable('png', error);
    }
  }
  try {
    const decoded = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: maxPixels / 1_000_000,
      maxMemoryUsageInMB: Math.ceil((maxPixels * 8) / 1_048_576) + 64,
    });
    if (decoded.width * decoded.height > maxPixels) throw tooLarge(decoded.width * decoded.height, maxPixels);
    return { format, width: decoded.width, height: decoded.height, data: decoded.data, alpha: false };
  } catch (error) {
    if (ValidationError.isInstance(error)) throw error;
    if (error instanceof Error && /maxResolutionInMP/.test(error.message)) {
      throw new ValidationError('image', 'a JPEG larger than maxPixels', `at most ${maxPixels} pixels`);
    }
    throw undecodable('jpeg', error);
  }
}

function tooLarge(pixels: number, maxPixels: number): ValidationError {
  return new ValidationError(
    'image',
    `an image of ${pixels} pixels`,
    `at most ${maxPixels} pixels (maxPixels)`,
  );
}

/** Encodes RGBA pixels; PNG keeps an alpha channel only when the source had one. */
export function encodeImage(
  image: RgbaImage,
  format: ImageFormat,
  options: { quality: number; alpha: boolean },
): Buffer {
  if (format === 'jpeg') {
    return jpeg.encode({ width: image.width, height: image.height, data: image.data }, options.quality).data;
  }
  const png = encodePng(image, options.alpha);
  return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
}
