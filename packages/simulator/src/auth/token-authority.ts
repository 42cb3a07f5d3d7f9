/**
 * Issues and checks access tokens. `expireAll()` rotates the signing key: every token issued
 * before (login tokens and the static one) stops working at once, and is reported as expired
 * rather than invalid because the simulator still recognises the old key.
 */
import { createSecretKey, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import { type JwtClaims, signJwt, verifyJwtSignature } from './jwt.js';

export type TokenCheck =
  | { status: 'valid'; claims?: JwtClaims }
  | { status: 'expired' }
  | { status: 'invalid' };

/** The static token outlives any test run; only expireAll() ends it. */
const STATIC_LIFETIME_MS = 10 * 365 * 24 * 3600 * 1000;

export class TokenAuthority {
  // A key object made once: HMAC with a raw buffer makes one per request, a tenth of the
  // simulator's CPU in a 50,000-event storm.
  #secret = newSecret();
  readonly #retired: KeyObject[] = [];
  #staticToken: string;
  /** A literal token given in the options (any string), valid until the first expireAll(). */
  #literalToken: string | undefined;
  readonly #lifetimeMs: number;
  readonly #subject: string;
  readonly #serviceId: string;
  readonly #now: () => number;

  constructor(options: {
    lifetimeMs: number;
    subject: string;
    serviceId: string;
    literalToken?: string;
    now?: () => number;
  }) {
    this.#lifetimeMs = options.lifetimeMs;
    this.#subject = options.subject;
    this.#serviceId = options.serviceId;
    this.#now = options.now ?? Date.now;
    this.#literalToken = options.literalToken;
    this.#staticToken = options.literalToken ?? this.issue(STATIC_LIFETIME_MS);
  }

  get staticToken(): string {
    return this.#staticToken;
  }

  /** A new JWT for the demo user; `exp` is rounded up to the next whole second as JWTs require. */
  issue(lifetimeMs = this.#lifetimeMs): string {
    const nowMs = this.#now();
    const claims: JwtClaims = {
      sub: this.#subject,
      iat: Math.floor(nowMs / 1000),
      exp: Math.ceil((nowMs + lifetimeMs) / 1000),
      jti: randomUUID(),
      service_id: this.#serviceId,
    };
    return signJwt(claims, this.#secret);
  }

  check(token: string | undefined | null): TokenCheck {
    if (!token) return { status: 'invalid' };
    if (this.#literalToken !== undefined && token === this.#literalToken) return { status: 'valid' };
    const claims = verifyJwtSignature(token, this.#secret);
    if (claims) return claims.exp * 1000 > this.#now() ? { status: 'valid', claims } : { status: 'expired' };
    if (this.#retired.some((secret) => verifyJwtSignature(token, secret))) return { status: 'expired' };
    return { status: 'invalid' };
  }

  /** Invalidates every token issued so far and issues a new static token. */
  expireAll(): string {
    this.#retired.push(this.#secret);
    this.#secret = newSecret();
    this.#literalToken = undefined;
    this.#staticToken = this.issue(STATIC_LIFETIME_MS);
    return this.#staticToken;
  }
}

function newSecret(): KeyObject {
  return createSecretKey(randomBytes(32));
}
