import type { Readable } from 'node:stream';

/** One HTTP request as core hands it to a transport. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Absolute URL, query string included. */
  url: string;
  headers: Record<string, string>;
  /** Request body, already serialized (JSON for login). */
  body?: string;
  /** Aborts the request, including reading the body. Core combines caller aborts and timeouts here. */
  signal: AbortSignal;
}

/** The answer of a transport. Exactly one of the body readers is called, once. */
export interface HttpResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  text(): Promise<string>;
  bytes(): Promise<Uint8Array>;
  /** The body as a stream (media downloads). */
  stream(): Readable;
  /** Throws the body away so the connection can be reused. */
  discard(): Promise<void>;
}

/**
 * The HTTP port. The default is undici with keep-alive; a host (e.g. n8n) may plug in its own.
 * A transport rejects only when no HTTP answer arrived (network, TLS, abort); every status,
 * including 4xx/5xx, resolves.
 */
export interface HttpTransport {
  request(request: HttpRequest): Promise<HttpResponse>;
  /** Releases pooled connections. Called by `client.close()`. */
  close?(): Promise<void>;
}
