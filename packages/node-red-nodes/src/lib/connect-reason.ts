import { HttpError } from '@observation-service/core';

/** Longest reason shown in a node's status ring; the whole error goes to Catch. */
const MAX_REASON = 40;

/**
 * A short reason a connection failed, for a status ring (as core's mqtt node shows
 * "disconnected"): `HTTP 404` for an answer, the system code (`ECONNREFUSED`, `ENOTFOUND`) for a
 * socket error, else the start of the message. Looks through the error's causes, since core wraps
 * what failed (`TASK_LIST_FAILED` around the HTTP error).
 */
export function connectReason(error: Error): string {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (HttpError.isInstance(current)) return `HTTP ${current.status}`;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    current = current.cause ?? (current as { errors?: unknown[] }).errors?.[0];
  }
  const message = error.message;
  return message.length > MAX_REASON ? `${message.slice(0, MAX_REASON - 1)}…` : message;
}
