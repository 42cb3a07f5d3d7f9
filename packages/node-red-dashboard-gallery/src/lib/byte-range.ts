/** One byte range of a file, both ends inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads a `Range: bytes=…` header for a file of `size` bytes (RFC 9110): undefined when there is
 * none or it is not a bytes range the server must honour (then the whole file is sent, 200);
 * `unsatisfiable` for a range that starts past the end (416). Several ranges at once are answered
 * with the first one only: browsers seeking a video ask for one.
 */
export function parseRange(
  header: string | string[] | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*(?:,.*)?$/i.exec(header.trim());
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    // The last N bytes.
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return undefined;
  return { start, end };
}
