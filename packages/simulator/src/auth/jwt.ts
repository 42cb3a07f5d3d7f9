/** Minimal HS256 JSON Web Tokens with node:crypto: enough to look and behave like the real ones. */
import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';

export interface JwtClaims {
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  [claim: string]: unknown;
}

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

export function signJwt(claims: JwtClaims, secret: KeyObject): string {
  const body = `${HEADER}.${base64url(JSON.stringify(claims))}`;
  return `${body}.${signature(body, secret)}`;
}

/** The claims when the signature matches `secret` (expiry is not checked here), else undefined. */
export function verifyJwtSignature(token: string, secret: KeyObject): JwtClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, given] = parts as [string, string, string];
  const expected = Buffer.from(signature(`${header}.${payload}`, secret));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JwtClaims;
    return typeof claims.exp === 'number' ? claims : undefined;
  } catch {
    return undefined;
  }
}

function signature(body: string, secret: KeyObject): string {
  return createHmac('sha256', secret).update(body).digest('base64url');
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
