import { ProtocolError } from '../errors/protocol-error.js';
import type { ObservationEvent } from '../model/observation-event.js';
import { normalizeEvent, readEvent } from '../normalize/normalize-event.js';

export type ParsedFrame =
  | { ok: true; event: ObservationEvent; raw: unknown }
  | { ok: false; error: ProtocolError };

/** Longest sample of a bad frame kept in an error: enough to recognise it, never a flood. */
export const sampleLength = 200;

/** Turns one socket frame into an event, or a ProtocolError with a short sample of the frame. */
export function parseFrame(data: unknown): ParsedFrame {
  const text = frameText(data);
  if (text === undefined) return malformed('a realtime frame was not text', '');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return malformed('a realtime frame was not JSON', text);
  }
  return parseRecord(raw, 'a realtime frame', text);
}

/**
 * The live path's `parseFrame` in two steps, without a result object per frame: the frame's JSON
 * (the event's `raw`), or the ProtocolError `parseFrame` gives when it is not text or not JSON
 * (JSON.parse never makes one). `frameEvent` reads the event of it.
 */
export function frameJson(data: unknown): unknown {
  const text = frameText(data);
  if (text === undefined) return malformedError('a realtime frame was not text', '');
  try {
    return JSON.parse(text);
  } catch {
    return malformedError('a realtime frame was not JSON', text);
  }
}

/** The event of a frame's JSON (from `frameJson`), or the ProtocolError `parseFrame` gives for it. */
export function frameEvent(raw: unknown, data: unknown): ObservationEvent | ProtocolError {
  const event = isObject(raw) ? readEvent(raw) : undefined;
  // The rare case: the frame's text again, for the sample.
  return event ?? unusable(raw, 'a realtime frame', frameText(data));
}

/** Same checks for one element of a history answer (already parsed JSON). */
export function parseRecord(raw: unknown, what: string, text?: string): ParsedFrame {
  // Never throws: normalization reports what it cannot read, getters that throw included.
  const event = isObject(raw) ? readEvent(raw) : undefined;
  if (event === undefined) return { ok: false, error: unusable(raw, what, text) };
  return { ok: true, event, raw };
}

function isObject(raw: unknown): raw is object {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw);
}

/** Why `raw` is no event (the rare case: it is read again for the problems that say why). */
function unusable(raw: unknown, what: string, text: string | undefined): ProtocolError {
  if (!isObject(raw)) return malformedError(`${what} was not a JSON object`, text ?? safeStringify(raw));
  const { problems } = normalizeEvent(raw);
  const why = problems.length > 0 ? `: ${problems.slice(0, 3).join('; ')}` : '';
  return malformedError(`${what} was not a usable event${why}`, text ?? safeStringify(raw));
}

function frameText(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  if (ArrayBuffer.isView(data))
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  if (Array.isArray(data) && data.every((part) => Buffer.isBuffer(part)))
    return Buffer.concat(data).toString('utf8');
  return undefined;
}

function malformed(message: string, text: string): ParsedFrame {
  return { ok: false, error: malformedError(message, text) };
}

function malformedError(message: string, text: string): ProtocolError {
  const sample = text.length > sampleLength ? `${text.slice(0, sampleLength - 1)}…` : text;
  return new ProtocolError(`${message} (skipped, the stream goes on)`, { sample });
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, sampleLength + 1) ?? String(value);
  } catch {
    return String(value);
  }
}
