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

/** Same checks for one element of a history answer (already parsed JSON). */
export function parseRecord(raw: unknown, what: string, text?: string): ParsedFrame {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return malformed(`${what} was not a JSON object`, text ?? safeStringify(raw));
  }
  // Never throws: normalization reports what it cannot read, getters that throw included.
  const event = readEvent(raw);
  if (event === undefined) {
    // The rare case: read it again for the problems that say why.
    const { problems } = normalizeEvent(raw);
    const why = problems.length > 0 ? `: ${problems.slice(0, 3).join('; ')}` : '';
    return malformed(`${what} was not a usable event${why}`, text ?? safeStringify(raw));
  }
  return { ok: true, event, raw };
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
  const sample = text.length > sampleLength ? `${text.slice(0, sampleLength - 1)}…` : text;
  return { ok: false, error: new ProtocolError(`${message} (skipped, the stream goes on)`, { sample }) };
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, sampleLength + 1) ?? String(value);
  } catch {
    return String(value);
  }
}
