import type { ClientCore } from '../context/client-core.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { iteratePages } from '../history/page-iterator.js';
import { getJson, type QueryValue } from '../http/request.js';

function sampleOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)?.slice(0, 200);
  } catch {
    return undefined;
  }
}

/** Checks at the edge that a body is an object with an integer `id`; unknown fields pass through. */
export function expectRecord<T>(body: unknown, what: string): T {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ProtocolError(`${what}: expected a JSON object`, { sample: sampleOf(body) });
  }
  const id = (body as { id?: unknown }).id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
    throw new ProtocolError(`${what}: the object has no integer id`, { sample: sampleOf(body) });
  }
  return body as T;
}

export function expectList<T>(body: unknown, what: string): T[] {
  if (!Array.isArray(body))
    throw new ProtocolError(`${what}: expected a JSON array`, { sample: sampleOf(body) });
  return body.map((item, index) => expectRecord<T>(item, `${what}[${index}]`));
}

export async function readPage<T>(
  core: ClientCore,
  path: string,
  query: Record<string, QueryValue>,
  offset: number | undefined,
  limit: number | undefined,
  signal: AbortSignal | undefined,
): Promise<T[]> {
  core.assertOpen();
  const body = await getJson(core.http, { path, query: { ...query, offset, limit }, signal });
  return expectList<T>(body, `GET ${path}`);
}

/** Every item of a list endpoint, page by page up to an empty page (default page size 100, the spec's default). */
export async function* readAll<T>(
  core: ClientCore,
  path: string,
  query: Record<string, QueryValue>,
  offset: number | undefined,
  limit: number | undefined,
  signal: AbortSignal | undefined,
): AsyncGenerator<T, void, undefined> {
  core.assertOpen();
  const pageSize = limit ?? 100;
  const pages = iteratePages<T>(
    async (pageOffset, pageSignal) => ({
      items: await readPage<T>(core, path, query, pageOffset, pageSize, pageSignal),
      limitUsed: pageSize,
    }),
    offset ?? 0,
    signal,
    core.logger,
  );
  for await (const page of pages) yield* page;
}
