import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from './describe-value.js';
import { type IdInput, parseId } from './parse-id.js';

/** One id, an array of ids or a comma-separated string. */
export type IdListInput = IdInput | readonly IdInput[];

const allowed = 'one or more distinct positive whole numbers, as an array or comma-separated ("1,2,3")';

/**
 * Accepts one id, an array of ids or a comma-separated string of ids. The list must be
 * non-empty and free of duplicates; each entry must pass `parseId`.
 */
export function parseIdList(value: unknown, field: string): number[] {
  let parts: unknown[];
  if (Array.isArray(value)) {
    parts = value;
  } else if (typeof value === 'string') {
    parts = value.trim() === '' ? [] : value.split(',');
  } else if (typeof value === 'number') {
    parts = [value];
  } else {
    throw new ValidationError(field, describeValue(value), allowed);
  }
  if (parts.length === 0) throw new ValidationError(field, describeValue(value), allowed);
  const ids: number[] = [];
  const seen = new Set<number>();
  parts.forEach((part, index) => {
    let id: number;
    try {
      id = parseId(part, `${field}[${index}]`);
    } catch {
      throw new ValidationError(`${field}[${index}]`, describeValue(part), allowed);
    }
    if (seen.has(id)) throw new ValidationError(field, `${id} more than once`, allowed);
    seen.add(id);
    ids.push(id);
  });
  return ids;
}
