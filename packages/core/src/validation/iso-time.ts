// Date-only, or date + time with optional seconds, fraction and zone (Z, +hh:mm, +hhmm, +hh).
const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (monthDays[month - 1] ?? 31);
}

/**
 * Parses an ISO 8601 date-time. A value without a zone is read as UTC, because the service
 * writes and expects UTC. Impossible dates (Feb 30, 25:00) give `undefined`; nothing throws.
 */
export function parseIsoTime(text: string): Date | undefined {
  const match = isoPattern.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', , sign, zh, zm = '0'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > daysInMonth(year, month)) return undefined;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  let offsetMinutes = 0;
  if (sign) {
    const oh = Number(zh);
    const om = Number(zm);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }
  let utc: number;
  if (year >= 100) {
    utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  } else {
    // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    date.setUTCHours(hour, minute, second, ms);
    utc = date.getTime();
  }
  const time = utc - offsetMinutes * 60_000;
  return Number.isFinite(time) ? new Date(time) : undefined;
}

/** The spec's wire shape `YYYY-MM-DDThh:mm:ss`, in UTC, without fraction or zone. */
export function toWireTime(date: Date): string {
  return date.toISOString().slice(0, 19);
}
