/** Small readers that accept the service's value or report why not; none of them throws. */

export type Problems = string[];

/**
 * Sets an own, enumerable entry. Plain assignment is fast, but a payload key "__proto__" would
 * replace the prototype instead: that one key goes through defineProperty.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short printable sample of a bad value for a problem message. */
export function sample(value: unknown): string {
  try {
    const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
    return text.length > 40 ? `${text.slice(0, 40)}…` : text;
  } catch {
    return typeof value;
  }
}

/** An integer, also from a string of digits (some deployments quote numbers). */
export function readInteger(value: unknown, name: string, problems: Problems): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) {
    const n = Number(value.trim());
    if (Number.isSafeInteger(n)) {
      problems.push(`${name} was a string (${sample(value)}), read as a number`);
      return n;
    }
  }
  problems.push(`${name} is not an integer: ${sample(value)}`);
  return undefined;
}

export function readNumber(value: unknown, name: string, problems: Problems): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    problems.push(`${name} was a string (${sample(value)}), read as a number`);
    return Number(value);
  }
  problems.push(`${name} is not a number: ${sample(value)}`);
  return undefined;
}

export function readString(value: unknown, name: string, problems: Problems): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) {
    problems.push(`${name} was a number, read as text`);
    return String(value);
  }
  problems.push(`${name} is not text: ${sample(value)}`);
  return undefined;
}

export function readBoolean(value: unknown, name: string, problems: Problems): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') {
    problems.push(`${name} was a string, read as a boolean`);
    return value === 'true';
  }
  if (value === 0 || value === 1) {
    problems.push(`${name} was a number, read as a boolean`);
    return value === 1;
  }
  problems.push(`${name} is not a boolean: ${sample(value)}`);
  return undefined;
}
