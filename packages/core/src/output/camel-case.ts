import { setOwn } from '../normalize/read-fields.js';

/**
 * A snake_case key in camelCase (`organization_id` → `organizationId`, `start_time` →
 * `startTime`). Only an underscore between a letter or digit and a lower-case letter or digit
 * is folded, so a key that is not snake_case (`camera`, `_links`, `HTTP_CODE`) comes back as it is.
 */
export function camelKey(key: string): string {
  return key.includes('_') ? key.replace(/(?<=[A-Za-z0-9])_+([a-z0-9])/g, upper) : key;
}

function upper(_match: string, letter: string): string {
  return letter.toUpperCase();
}

/**
 * Copies the fields of `raw` that `handled` does not name into `out` with their key in camelCase
 * and their value untouched (the service's fields the spec does not describe). A key that would
 * land on a field already there keeps its own spelling rather than overwrite it; the spec's field
 * wins (a service that sent both `camera_id` and `cameraId` shows the first as `cameraId`).
 */
export function copyUnknownFields(
  out: Record<string, unknown>,
  raw: Record<string, unknown>,
  handled: ReadonlySet<string>,
): void {
  for (const key of Object.keys(raw)) {
    if (handled.has(key)) continue;
    const camel = camelKey(key);
    if (!Object.hasOwn(out, camel)) setOwn(out, camel, raw[key]);
    else if (!Object.hasOwn(out, key)) setOwn(out, key, raw[key]);
  }
}

/** Sets `key` only when the service sent a value for it, so the output holds no undefined field. */
export function putDefined(out: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) out[key] = value;
}
