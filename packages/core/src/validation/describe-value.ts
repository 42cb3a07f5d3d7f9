const maxShown = 60;

/**
 * A short, printable description of a value for error messages. Long strings are cut so a
 * pasted payload cannot flood a log; secrets must never reach here (callers pass `secret`).
 */
export function describeValue(value: unknown, secret = false): string {
  if (secret) return '*** (hidden)';
  if (value === undefined) return 'nothing (undefined)';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    if (value === '') return 'an empty string';
    const cut = value.length > maxShown ? `${value.slice(0, maxShown)}…` : value;
    return JSON.stringify(cut);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : value.toISOString();
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  return 'an object';
}
