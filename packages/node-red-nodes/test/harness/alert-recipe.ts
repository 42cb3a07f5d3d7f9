import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TAB } from './flows.js';
import { type FlowNode, packageRoot } from './node-red.js';

/**
 * The README's chat alert recipe as test material: its function bodies read from the README (so a
 * test runs what users copy), and a local chat webhook that can answer 503.
 */
const HEADING = '### Recipe: a chat alert that is not lost';

/** The recipe's two function bodies, as the package README gives them (and the root README repeats). */
export function recipeCode(): { request: string; check: string } {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(HEADING);
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  if (start < 0 || blocks.length !== 2) throw new Error(`the README's recipe has ${blocks.length} js blocks`);
  const [request, check] = blocks as [string, string];
  return { request, check };
}

/**
 * The recipe's alert request with its one address line pointed at `url` (Telegram's API is not
 * reachable from a test); every other line runs as written.
 */
export function recipeRequest(url: string): string {
  const { request } = recipeCode();
  const line = /^const api = .*$/m;
  if (!line.test(request)) throw new Error("the recipe's address line moved");
  return request.replace(line, `const api = ${JSON.stringify(url)};`);
}

/** The recipe's nodes after an events node: alert request → http request → answered 2xx? → `end`. */
export function recipeNodes(url: string, end: string, prefix = '', z = TAB, check = true): FlowNode[] {
  const { check: checkCode } = recipeCode();
  return [
    {
      id: `${prefix}alert-request`,
      type: 'function',
      z,
      name: 'alert request',
      func: recipeRequest(url),
      outputs: 1,
      wires: [[`${prefix}post`]],
    },
    {
      id: `${prefix}post`,
      type: 'http request',
      z,
      method: 'POST',
      ret: 'txt',
      paytoqs: 'ignore',
      url: '',
      senderr: false,
      headers: [],
      wires: [[check ? `${prefix}answered` : end]],
    },
    ...(check
      ? [
          {
            id: `${prefix}answered`,
            type: 'function',
            z,
            name: 'answered 2xx?',
            func: checkCode,
            outputs: 1,
            wires: [[end]],
          },
        ]
      : []),
  ];
}

/**
 * A chat webhook: answers 503 while `down` says so, otherwise 200. Each request is recorded with
 * its caption or text (the alert names the event's task and time) and the answer it got.
 */
export async function startChat(down: () => boolean) {
  const requests: Array<{ text: string; status: number; at: number; path: string }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('latin1');
      const text =
        /name="caption"\r\n\r\n([^\r]*)\r\n/.exec(body)?.[1] ??
        ((JSON.parse(body || '{}') as { text?: string }).text || '');
      const status = down() ? 503 : 200;
      requests.push({ text, status, at: Date.now(), path: request.url ?? '' });
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(status === 200 ? '{"ok":true}' : '{"ok":false,"description":"Service Unavailable"}');
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bot-test`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}

/** The recipe's caption of an event, as the chat receives it. */
export const captionOf = (event: { eventName: string; taskId: number; timestamp: string }) =>
  `${event.eventName} on task ${event.taskId} at ${event.timestamp}`;
