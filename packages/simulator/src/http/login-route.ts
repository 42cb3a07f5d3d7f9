/**
 * POST /users/token: email/password login answering `{"access_token": "<JWT>"}`. The older
 * client-credentials body (`grant_type: client_credentials`, `client_id` = email,
 * `client_secret` = password) is accepted too and answers with `token_type` as that generation did.
 * Every attempt counts against the rate limit, successful or not.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from '../server-context.js';
import { HttpProblem, sendJson, type ValidationIssue } from './http-problem.js';
import { readJsonBody } from './read-body.js';

export async function handleLogin(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ServerContext,
): Promise<void> {
  ctx.counters.logins++;
  const gate = ctx.limiter.attempt(Date.now());
  if (!gate.allowed) {
    throw new HttpProblem(429, 'Too many login attempts, try again later', {
      'retry-after': String(gate.retryAfterSeconds),
    });
  }
  const body = await readJsonBody(req);
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  const { email, password } = ctx.options.credentials;
  if (fields.grant_type === 'client_credentials') {
    requireStrings(fields, ['client_id', 'client_secret']);
    if (fields.client_id !== email || fields.client_secret !== password) {
      throw new HttpProblem(401, 'Invalid client credentials');
    }
    sendJson(res, 200, { access_token: ctx.tokens.issue(), token_type: 'Bearer' });
    return;
  }
  requireStrings(fields, ['email', 'password']);
  if (fields.email !== email || fields.password !== password)
    throw new HttpProblem(401, 'Incorrect email or password');
  sendJson(res, 200, { access_token: ctx.tokens.issue() });
}

/** 422 for missing or non-string fields; the given values are never echoed (they may be secrets). */
function requireStrings(fields: Record<string, unknown>, names: string[]): void {
  const issues: ValidationIssue[] = [];
  for (const name of names) {
    const value = fields[name];
    if (value === undefined) issues.push({ type: 'missing', loc: ['body', name], msg: 'Field required' });
    else if (typeof value !== 'string')
      issues.push({ type: 'string_type', loc: ['body', name], msg: 'Input should be a valid string' });
  }
  if (issues.length > 0) throw new HttpProblem(422, issues);
}
