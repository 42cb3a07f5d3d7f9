import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from './describe-value.js';

/**
 * Refuses a filter object that is not a plain object or names a filter the call does not know,
 * so a typo (`taskID`) fails loudly instead of silently returning everything. `aliases` maps
 * accepted spellings (the spec's snake_case names) to the canonical camelCase name.
 * Entries whose value is `undefined` are ignored.
 */
export function checkFilterNames(
  filters: unknown,
  known: readonly string[],
  where: string,
  aliases: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  if (filters === undefined || filters === null) return {};
  if (typeof filters !== 'object' || Array.isArray(filters)) {
    throw new ValidationError(where, describeValue(filters), 'an object of filters');
  }
  const out: Record<string, unknown> = {};
  const allowedText = `one of ${known.join(', ')}`;
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    const canonical = known.includes(name) ? name : aliases[name];
    if (canonical === undefined) {
      throw new ValidationError(`${where} filter name`, JSON.stringify(name.slice(0, 60)), allowedText);
    }
    if (canonical in out) {
      throw new ValidationError(
        `${where}.${canonical}`,
        `both ${canonical} and its alias ${name}`,
        'one spelling',
      );
    }
    out[canonical] = value;
  }
  return out;
}
