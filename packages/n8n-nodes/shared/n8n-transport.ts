import type { HttpRequest, HttpResponse, HttpTransport } from '@observation-service/core/portable';
import type { IHttpRequestOptions } from 'n8n-workflow';

/** n8n's `helpers.httpRequest` (execute, trigger and load-options contexts all have it). */
export type N8nHttpRequest = (options: IHttpRequestOptions) => Promise<unknown>;

/** Query values that carry a token are masked before a transport error message goes anywhere. */
function redact(text: string): string {
  return text.replace(/((?:auth_)?token=)[^&\s"']+/gi, '$1***');
}

/**
 * A transport failure for core: a network code (ECONNREFUSED, …) and a message without secrets.
 * Core turns it into a NetworkError (or a TimeoutError when its deadline fired).
 */
function transportFailure(error: unknown): Error {
  const source = error as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
  const code =
    typeof source?.code === 'string'
      ? source.code
      : typeof source?.cause?.code === 'string'
        ? source.cause.code
        : undefined;
  const message = typeof source?.message === 'string' ? redact(source.message) : 'request failed';
  const failure = new Error(message) as Error & { code?: string };
  if (code) failure.code = code;
  return failure;
}

interface StreamLike extends AsyncIterable<Uint8Array | string> {
  destroy?(error?: Error): void;
  resume?(): void;
}

async function readAll(stream: StreamLike): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

function lowerCaseHeaders(headers: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (!headers || typeof headers !== 'object') return out;
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/**
 * Core's HTTP port on top of n8n's own request helper, so requests follow the instance's proxy
 * and TLS settings and the package needs no HTTP library of its own. Every status resolves (core
 * reads error bodies itself); redirects are not followed, so a token in a media URL never travels
 * to another host; bodies arrive as a stream and are read only as core asks.
 */
export function createN8nTransport(
  httpRequest: N8nHttpRequest,
  skipCertificateCheck: boolean,
): HttpTransport {
  return {
    async request(request: HttpRequest): Promise<HttpResponse> {
      let answer: { statusCode?: number; headers?: unknown; body?: unknown };
      try {
        answer = (await httpRequest({
          url: request.url,
          method: request.method,
          headers: request.headers,
          body: request.body,
          encoding: 'stream',
          json: false,
          returnFullResponse: true,
          ignoreHttpStatusErrors: true,
          disableFollowRedirect: true,
          skipSslCertificateValidation: skipCertificateCheck,
          abortSignal: request.signal,
        })) as typeof answer;
      } catch (error) {
        throw transportFailure(error);
      }
      const body = answer.body as StreamLike | undefined;
      const bytes = async (): Promise<Uint8Array> => {
        if (!body) return new Uint8Array();
        try {
          return await readAll(body);
        } catch (error) {
          throw transportFailure(error);
        }
      };
      return {
        status: answer.statusCode ?? 0,
        headers: lowerCaseHeaders(answer.headers),
        bytes,
        text: async () => Buffer.from(await bytes()).toString('utf8'),
        stream: () => body as unknown as ReturnType<HttpResponse['stream']>,
        discard: async () => {
          body?.destroy?.();
        },
      };
    },
  };
}
