import { ValidationError } from '../errors/validation-error.js';
import type { AnnotateOptions } from '../ports.js';
import { describeValue } from '../validation/describe-value.js';
import type { ImageFormat } from './image-codec.js';
import type { Rgb } from './raster.js';

export interface ResolvedAnnotateOptions {
  format: ImageFormat | undefined;
  lineWidth: number | undefined;
  quality: number;
  labels: boolean;
  fontScale: number | undefined;
  boxColour: Rgb;
  warningColour: Rgb;
  maxPixels: number;
  maxWidth: number | undefined;
  fileStem: string;
}

export const defaultBoxColour = '#FACC15';
export const defaultWarningColour = '#FF1744';
const defaultMaxPixels = 40_000_000;

function wholeNumber(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(field, describeValue(value), `a whole number from ${min} to ${max}`);
  }
  return value;
}

export function parseColour(value: unknown, field: string): Rgb {
  if (typeof value !== 'string' || !/^#[0-9a-f]{6}$/i.test(value)) {
    throw new ValidationError(field, describeValue(value), 'a colour written #rrggbb, e.g. "#FF1744"');
  }
  const n = Number.parseInt(value.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** Validates the options; throws ValidationError naming the option. */
export function resolveAnnotateOptions(options: AnnotateOptions | undefined): ResolvedAnnotateOptions {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object') {
    throw new ValidationError('options', describeValue(options), 'an object of annotation options');
  }
  const { format } = options;
  if (format !== undefined && format !== 'png' && format !== 'jpeg' && format !== 'jpg') {
    throw new ValidationError('format', describeValue(format), '"png" or "jpeg"');
  }
  if (options.labels !== undefined && typeof options.labels !== 'boolean') {
    throw new ValidationError('labels', describeValue(options.labels), 'true or false');
  }
  const colors = options.colors ?? {};
  if (typeof colors !== 'object') {
    throw new ValidationError(
      'colors',
      describeValue(colors),
      'an object { box?, warning? } of #rrggbb colours',
    );
  }
  const stem = options.fileName ?? 'snapshot';
  if (typeof stem !== 'string' || stem.trim() === '') {
    throw new ValidationError('fileName', describeValue(stem), 'a non-empty file name');
  }
  return {
    format: format === 'jpg' ? 'jpeg' : format,
    lineWidth: wholeNumber(options.lineWidth, 'lineWidth', 1, 64),
    quality: wholeNumber(options.quality, 'quality', 1, 100) ?? 85,
    labels: options.labels ?? true,
    fontScale: wholeNumber(options.fontScale, 'fontScale', 1, 16),
    boxColour: parseColour(colors.box ?? defaultBoxColour, 'colors.box'),
    warningColour: parseColour(colors.warning ?? defaultWarningColour, 'colors.warning'),
    maxPixels: wholeNumber(options.maxPixels, 'maxPixels', 1, 1_000_000_000) ?? defaultMaxPixels,
    maxWidth: wholeNumber(options.maxWidth, 'maxWidth', 16, 8192),
    fileStem: fileStem(stem),
  };
}

/** A safe stem: no folders, no extension of an image, only portable characters. */
function fileStem(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const stem = base
    .replace(/\.(png|jpe?g|gif|webp|bmp)$/i, '')
    .replace(/[^\w.-]+/g, '_')
    .slice(0, 120);
  return stem === '' || /^\.+$/.test(stem) ? 'snapshot' : stem;
}
