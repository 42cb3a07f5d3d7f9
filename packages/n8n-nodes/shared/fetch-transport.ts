import type { HttpRequest, HttpResponse, HttpTransport } from '@observation-service/core/portable';

/**
 * Core's HTTP port for the credential test. n8n gives a credential test no request helper but
 * the deprecated `request`, so this one uses Node's built-in fetch. The test reads small JSON
 * bodies only (login, one task), so bodies are buffered and never streamed; redirects are not
 * followed so a token never travels to another host. Node's fetch always verifies certificates.
 */
export function createFetchTransport(): HttpTransport {
  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      let response: Response;
      try {
        response = await fetch(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body,
          signal: req.signal,
          redirect: 'manual',
        });
      } catch (error) {
        // fetch hides the reason in `cause` (ECONNREFUSED, a certificate error, …); its message never holds the URL.
        const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
        const code = typeof cause?.code === 'string' ? cause.code : undefined;
        const detail = typeof cause?.message === 'string' ? cause.message : 'request failed';
        const failure = new Error(detail) as Error & { code?: string };
        if (code) failure.code = code;
        throw failure;
      }
      const headers: Record<string, string | undefined> = {};
      response.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
      return {
        status: response.status,
        headers,
        bytes: async () => new Uint8Array(await response.arrayBuffer()),
        text: () => response.text(),
        stream: () => {
          throw new Error('streamed bodies are not used by the credential test');
        },
        discard: async () => {
          await response.body?.cancel();
        },
      };
    },
  };
}
