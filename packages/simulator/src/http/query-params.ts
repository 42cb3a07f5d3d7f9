/**
 * Reads query and path parameters the way FastAPI validates them: every problem is collected and
 * answered together as 422 `{"detail": [{type, loc, msg, input}]}`. Unknown parameters are ignored.
 */
import { parseQueryTime } from '../time-format.js';
import { HttpProblem, type ValidationIssue } from './http-problem.js';

const INTEGER = /^[+-]?\d+$/;

export class ParamReader {
  readonly #issues: ValidationIssue[] = [];
  readonly #values: URLSearchParams | Map<string, string>;
  readonly #where: 'query' | 'path';

  constructor(values: URLSearchParams | Map<string, string>, where: 'query' | 'path' = 'query') {
    this.#values = values;
    this.#where = where;
  }

  #raw(name: string): string | undefined {
    if (this.#values instanceof URLSearchParams) {
      // Like Starlette, a repeated scalar parameter takes its last value.
      const all = this.#values.getAll(name);
      return all.length > 0 ? all[all.length - 1] : undefined;
    }
    return this.#values.get(name);
  }

  string(name: string): string | undefined {
    return this.#raw(name);
  }

  int(name: string, bounds: { min?: number } = {}): number | undefined {
    const raw = this.#raw(name);
    if (raw === undefined) return undefined;
    const text = raw.trim();
    const value = Number(text);
    if (!INTEGER.test(text) || !Number.isSafeInteger(value)) {
      this.#issues.push({
        type: 'int_parsing',
        loc: [this.#where, name],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: raw,
      });
      return undefined;
    }
    if (bounds.min !== undefined && value < bounds.min) {
      this.#issues.push({
        type: 'greater_than_equal',
        loc: [this.#where, name],
        msg: `Input should be greater than or equal to ${bounds.min}`,
        input: raw,
        ctx: { ge: bounds.min },
      });
      return undefined;
    }
    return value;
  }

  /** Comma-separated integers, e.g. `ids=3,5,8`. */
  intList(name: string): number[] | undefined {
    const raw = this.#raw(name);
    if (raw === undefined) return undefined;
    const parts = raw.split(',').map((part) => part.trim());
    if (parts.some((part) => !INTEGER.test(part) || !Number.isSafeInteger(Number(part)))) {
      this.#issues.push({
        type: 'int_list_parsing',
        loc: [this.#where, name],
        msg: 'Input should be a comma-separated list of integers, e.g. 3,5,8',
        input: raw,
      });
      return undefined;
    }
    return parts.map(Number);
  }

  /** ISO 8601 datetime (no zone = UTC), as epoch milliseconds. */
  time(name: string): number | undefined {
    const raw = this.#raw(name);
    if (raw === undefined) return undefined;
    const ms = parseQueryTime(raw);
    if (ms === undefined) {
      this.#issues.push({
        type: 'datetime_from_date_parsing',
        loc: [this.#where, name],
        msg: 'Input should be a valid datetime or date, e.g. 2024-05-01T08:00:00',
        input: raw,
      });
    }
    return ms;
  }

  /** Throws the collected 422 when any parameter was invalid. */
  finish(): void {
    if (this.#issues.length > 0) throw new HttpProblem(422, this.#issues);
  }
}

/** Applies a form's maximum to `limit`: a 422 naming the maximum, or a silent clamp. */
export function applyLimitMaximum(limit: number, maximum: number, overLimit: 'reject' | 'clamp'): number {
  if (limit <= maximum) return limit;
  if (overLimit === 'clamp') return maximum;
  throw new HttpProblem(422, `limit must be <= ${maximum}`);
}
