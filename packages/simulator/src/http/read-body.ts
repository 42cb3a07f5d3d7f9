import type { IncomingMessage } from 'node:http';
import { HttpProblem } from './http-problem.js';

/** Reads a JSON request body (up to `maxBytes`); invalid JSON is a FastAPI-style 422. */
export async function readJsonBody(req: IncomingMessage, maxBytes = 64 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new HttpProblem(413, `Request body larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpProblem(422, [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }]);
  }
}
