/** Error answers shaped like a FastAPI deployment's: JSON `{"detail": …}`. */
import type { ServerResponse } from 'node:http';

/** One entry of FastAPI's 422 `detail` array. */
export interface ValidationIssue {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** Thrown by handlers, turned into a JSON error answer by the dispatcher. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly detail: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, detail: unknown, headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
    this.name = 'HttpProblem';
    this.status = status;
    this.detail = detail;
    this.headers = headers;
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string | number> = {},
): void {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': body.length,
    ...headers,
  });
  res.end(body);
}

/** Sends JSON that is already text. */
export function sendJsonText(res: ServerResponse, status: number, json: string): void {
  const body = Buffer.from(json);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
}

export function sendProblem(res: ServerResponse, problem: HttpProblem): void {
  sendJson(res, problem.status, { detail: problem.detail }, problem.headers);
}

export function notFound(what = 'Not Found'): HttpProblem {
  return new HttpProblem(404, what);
}
