import type { ClientCore } from '../context/client-core.js';
import { historyLimitMax } from '../context/form-state.js';
import { HttpError } from '../errors/http-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { findNamedMaximum } from '../http/error-body.js';
import { countArrayElements } from '../http/json-body.js';
import { getJson, type QueryValue } from '../http/request.js';
import type { Page, PageArrived } from './page-iterator.js';

/** Page size used when the caller gives none and the form's maximum is not known yet. */
export const autoFirstPageSize = historyLimitMax.basic;

/**
 * Fetches one page of raw history. `limit` is clamped to the form's maximum; in `auto` form an
 * over-maximum refusal (400/422) is learned once, naming the maximum or falling back to the
 * smaller one, and the request is repeated with it. A clamped page (exactly 100 events when
 * more were asked) is learned the same way. `arrived` is told when the answer is in, with its
 * rows counted, and the page is parsed once it resolves (see `PageArrived`).
 */
export async function fetchHistoryPage(
  core: ClientCore,
  filters: { query: Record<string, QueryValue>; extendedOnly: string[] },
  offset: number,
  requestedLimit: number,
  signal: AbortSignal | undefined,
  arrived?: PageArrived,
): Promise<Page<unknown>> {
  const query = filters.query;
  const beforeParse =
    arrived === undefined ? undefined : (bytes: Uint8Array) => arrived(countArrayElements(bytes));
  // The page at `offset` with this limit: asked once, and again after a refused limit was learned.
  const ask = (limit: number) =>
    getJson(core.http, { path: '/events/history', query: { ...query, offset, limit }, signal, beforeParse });
  const max = core.form.historyMax();
  let limit = max === undefined ? requestedLimit : Math.min(requestedLimit, max);
  let body: unknown;
  try {
    body = await ask(limit);
  } catch (error) {
    const auto = core.form.configured === 'auto';
    if (!auto || !HttpError.isInstance(error) || (error.status !== 400 && error.status !== 422)) throw error;
    if (limit <= historyLimitMax.extended) throw error;
    const named = findNamedMaximum(error.reason);
    const learned = named !== undefined && named < limit ? named : historyLimitMax.extended;
    core.form.learnHistoryMax(learned);
    core.logger.info('history limit maximum learned from the service', { maximum: learned });
    limit = Math.min(requestedLimit, learned);
    body = await ask(limit);
  }
  if (!Array.isArray(body)) {
    throw new ProtocolError('GET /events/history answered with something other than a JSON array', {
      sample: JSON.stringify(body)?.slice(0, 200),
    });
  }
  if (filters.extendedOnly.length > 0 && body.length > 0 && isBasicPayload(body[0])) {
    // A basic-form service ignores these filters: its answer would silently be unfiltered.
    const name = filters.extendedOnly[0] as string;
    throw new ValidationError(
      name,
      'a filter the service does not know',
      `no ${name}: the service answers in the basic form, which has no ${filters.extendedOnly.join(', ')} filter`,
    );
  }
  if (
    core.form.configured === 'auto' &&
    max === undefined &&
    body.length === historyLimitMax.extended &&
    limit > body.length
  ) {
    // A deployment that clamps silently: treat 100 as the page size from now on.
    core.form.learnHistoryMax(historyLimitMax.extended);
    core.logger.info('history limit maximum learned from a clamped page', {
      maximum: historyLimitMax.extended,
    });
    limit = historyLimitMax.extended;
  }
  return { items: body, limitUsed: limit };
}

const extendedFields = ['id', 'location_id', 'camera_id', 'timezone', 'vlm', 'coordinates', 'note'];

function isBasicPayload(item: unknown): boolean {
  return typeof item === 'object' && item !== null && !extendedFields.some((field) => field in item);
}
