/**
 * A history answer capped by its size (`historyPageBytes`): as many whole rows as fit in the
 * budget of JSON bytes, at least one. Services that bound an answer by bytes rather than rows
 * (DynamoDB's 1 MB per Query page, Kafka's fetch.max.bytes) return pages of varying length,
 * shorter than asked while more rows follow, because rows with long VLM answers take more room.
 */

/**
 * No row of either form is this small: the key names of the basic form alone take more. So a
 * budget of B bytes never holds more than B / MIN_ROW_BYTES rows, and the log need not build more.
 */
const MIN_ROW_BYTES = 100;

/** The most rows a page within `maxBytes` can hold, to bound what the log builds. */
export function rowsWithinBytesAtMost(maxBytes: number): number {
  return Math.floor(maxBytes / MIN_ROW_BYTES) + 1;
}

/** The JSON array of the leading rows that fit in `maxBytes` (the first always, even when larger). */
export function pageWithinBytes(rows: readonly string[], maxBytes: number): string {
  let bytes = 2;
  let kept = 0;
  for (const row of rows) {
    const size = Buffer.byteLength(row) + (kept > 0 ? 1 : 0);
    if (kept > 0 && bytes + size > maxBytes) break;
    bytes += size;
    kept++;
  }
  return `[${rows.slice(0, kept).join(',')}]`;
}
