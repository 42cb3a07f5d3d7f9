import { HttpError } from '@observation-service/core';

/** Longest reason shown in a node's status ring; the whole error goes to Catch. */
const MAX_REASON = 40;

/** A system code of a socket error (`ECONNREFUSED`, `ENOTFOUND`). */
function systemCode(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^E[A-Z_]+$/.test(code) ? code : undefined;
}

/**
 * The error in the chain that says why a connection failed: an HTTP answer or a socket error.
 * Core wraps what failed (`TASK_LIST_FAILED` around the HTTP error), so its causes are searched.
 */
function whyItFailed(error: Error): Error | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (HttpError.isInstance(current) || systemCode(current)) return current;
    current = current.cause ?? (current as { errors?: unknown[] }).errors?.[0];
  }
  return undefined;
}

/**
 * A short reason a connection failed, for a status ring (as core's mqtt node shows
 * "disconnected"): `HTTP 404` for an answer, the system code for a socket error, else the start
 * of the message.
 */
export function connectReason(error: Error): string {
  const why = whyItFailed(error);
  if (why && HttpError.isInstance(why)) return `HTTP ${why.status}`;
  if (why) return systemCode(why) as string;
  const message = error.message;
  return message.length > MAX_REASON ? `${message.slice(0, MAX_REASON - 1)}…` : message;
}

/**
 * What the debug sidebar shows first of the report (it cuts a message at about 80 characters):
 * the failed request with its address (`GET http://host/path failed with HTTP 404`), the part a
 * user fixes; the whole error, with what core was doing, is its cause.
 */
export function connectDetail(error: Error): string {
  return (whyItFailed(error) ?? error).message;
}
