export type TaskStatusCategory = 'operating' | 'non-operating' | 'unknown';

export interface TaskStatus {
  category: TaskStatusCategory;
  /** The sub-state (`normal`, `paused`, …); for unknown values the whole trimmed status. */
  state: string;
  /** The status exactly as received. */
  raw: string;
}

/**
 * Splits `operating, normal` into category and state. Unknown categories and the spec's bare
 * `video` give category `unknown`; this never throws, whatever it is given.
 */
export function parseTaskStatus(status: string): TaskStatus {
  const raw = typeof status === 'string' ? status : safeString(status);
  const comma = raw.indexOf(',');
  const head = (comma === -1 ? raw : raw.slice(0, comma)).trim().toLowerCase();
  const tail = comma === -1 ? '' : raw.slice(comma + 1).trim();
  if ((head === 'operating' || head === 'non-operating') && tail !== '') {
    return { category: head, state: tail.toLowerCase(), raw };
  }
  return { category: 'unknown', state: raw.trim(), raw };
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '';
  }
}
