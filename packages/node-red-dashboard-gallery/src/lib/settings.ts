/** Settings of a gallery node as the editor saves them. */
export interface GalleryConfig {
  group?: string;
  server?: string;
  maxCards?: string | number;
  maxImageMegabytes?: string | number;
}

export const DEFAULT_MAX_CARDS = 24;
export const MAX_CARDS_LIMIT = 200;
export const DEFAULT_MAX_IMAGE_MEGABYTES = 64;
export const MAX_IMAGE_MEGABYTES_LIMIT = 1024;

function wholeNumber(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const number = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new Error(`${field} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return number;
}

/** The checked settings; throws an Error naming the field, the value and what is allowed. */
export function parseSettings(config: GalleryConfig): { maxCards: number; maxImageBytes: number } {
  return {
    maxCards: wholeNumber(config.maxCards, 'maxCards', DEFAULT_MAX_CARDS, 1, MAX_CARDS_LIMIT),
    maxImageBytes:
      wholeNumber(
        config.maxImageMegabytes,
        'maxImageMegabytes',
        DEFAULT_MAX_IMAGE_MEGABYTES,
        1,
        MAX_IMAGE_MEGABYTES_LIMIT,
      ) *
      1024 *
      1024,
  };
}
