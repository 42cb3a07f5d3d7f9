/** Core's stable error code, when the error has one (on the message to Catch nodes). */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A thrown value as an Error, for Node-RED's `done(error)`. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
