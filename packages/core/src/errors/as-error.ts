/** A thrown value as an Error (hosts and handlers may throw anything). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
