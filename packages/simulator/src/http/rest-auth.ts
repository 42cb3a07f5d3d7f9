/**
 * REST authentication as deployments do it: `Authorization: Bearer <token>` always, and
 * `X-Service-Id` in the extended form. In form `both` the header decides the form of the
 * request: sent (and right) → extended, absent → basic.
 */
import type { IncomingMessage } from 'node:http';
import type { ServerContext } from '../server-context.js';
import type { Form } from '../types.js';
import { HttpProblem } from './http-problem.js';

const CHALLENGE = { 'www-authenticate': 'Bearer' };

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/** Throws 401 for a missing, invalid or expired token. */
export function requireToken(ctx: ServerContext, token: string | undefined): void {
  if (!token) throw new HttpProblem(401, 'Not authenticated', CHALLENGE);
  const check = ctx.tokens.check(token);
  if (check.status === 'expired') throw new HttpProblem(401, 'Token has expired', CHALLENGE);
  if (check.status === 'invalid') throw new HttpProblem(401, 'Could not validate credentials', CHALLENGE);
}

/** Authenticates a REST call and returns the form it is answered in. */
export function authenticate(req: IncomingMessage, ctx: ServerContext): Form {
  requireToken(ctx, bearerToken(req));
  const { form, serviceId } = ctx.options;
  if (form === 'basic') return 'basic'; // the older generation knew no service id: the header is ignored
  const sent = req.headers['x-service-id'];
  const given = Array.isArray(sent) ? sent[0] : sent;
  if (given === undefined || given === '') {
    if (form === 'both') return 'basic';
    throw new HttpProblem(403, 'X-Service-Id header is required');
  }
  if (given !== serviceId) throw new HttpProblem(403, 'Unknown service id');
  return 'extended';
}
