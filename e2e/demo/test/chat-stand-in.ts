import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in chat received, as it came. */
export interface ChatRequest {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}

/**
 * A local HTTP server in place of Telegram's Bot API for the README's chat alert recipe: records
 * every request and answers as Telegram does on success (200, `{"ok":true,…}`).
 */
export async function startChatStandIn(): Promise<{
  base: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}> {
  const requests: ChatRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true,"result":{"message_id":1}}');
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

/** The parts of a multipart/form-data body, parsed by the platform's own FormData reader. */
export async function formParts(request: ChatRequest): Promise<FormData> {
  return new Response(new Uint8Array(request.body), {
    headers: { 'content-type': request.contentType },
  }).formData();
}
