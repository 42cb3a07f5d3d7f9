/** Timestamps are served in the spec's shape `YYYY-MM-DDThh:mm:ssZ`: UTC, second resolution. */
export function formatTimestamp(epochSeconds: number): string {
  // Live events arrive thousands per second, from a handful of recent seconds when cameras lag
  // behind by different amounts: a small cache indexed by the second keeps toISOString rare.
  const slot = epochSeconds & CACHE_MASK;
  if (cachedSeconds[slot] !== epochSeconds) {
    const text = `${new Date(epochSeconds * 1000).toISOString().slice(0, 19)}Z`;
    cachedSeconds[slot] = epochSeconds;
    cachedTexts[slot] = text;
    secondsOfText.set(text, epochSeconds);
    if (secondsOfText.size > 4 * (CACHE_MASK + 1)) secondsOfText.clear();
  }
  return cachedTexts[slot] as string;
}

/** The Unix seconds of a timestamp in the spec's shape (for deployments that send numbers). */
export function epochSecondsOf(timestamp: string): number {
  return secondsOfText.get(timestamp) ?? Date.parse(timestamp) / 1000;
}

const CACHE_MASK = 255;
const cachedSeconds = new Float64Array(CACHE_MASK + 1).fill(Number.NaN);
const cachedTexts: string[] = new Array(CACHE_MASK + 1).fill('');
const secondsOfText = new Map<string, number>();

// ISO 8601 as FastAPI/pydantic accept it for a datetime query parameter: a date, optionally a
// time (seconds and fractions optional), optionally `Z` or an offset; no zone means UTC.
const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses a query time to epoch milliseconds, or undefined when it is not a valid ISO 8601 datetime. */
export function parseQueryTime(value: string): number | undefined {
  const match = ISO_DATETIME.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, Number(`0.${fraction || '0'}`) * 1000);
  // Date.UTC rolls 31 February over into March: reject dates that do not exist.
  if (new Date(utc).getUTCDate() !== day) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0'));
  }
  return utc - offsetMinutes * 60_000;
}
