import { AuthError } from '../errors/auth-error.js';
import { abortReason, type Clock, type Logger } from '../ports.js';
import { readJwtTimes } from './jwt-expiry.js';

/** What core tells a host that keeps the token (see `AuthOptions`) when it asks for one. */
export interface TokenRequest {
  /**
   * The token the service refused (HTTP 401, or a refused realtime upgrade): hand out a newer
   * one, renewing it when the host's store still holds this one.
   */
  rejected?: string;
}

/**
 * A fixed access token; credentials to log in with; or `getToken`, for a host that keeps the
 * token in its own store (shared by all of its processes) and renews it there. Core asks
 * `getToken` once, keeps the answer until the service refuses it, then asks again with the
 * refused token; one request at a time, shared by every waiter.
 */
export type AuthOptions =
  | { token: string }
  | { email: string; password: string }
  | { getToken: (request: TokenRequest) => Promise<string> };

export interface TokenProviderOptions {
  auth: AuthOptions;
  /** Performs one login and returns the access token. */
  login: (signal?: AbortSignal) => Promise<string>;
  clock: Clock;
  logger: Logger;
}

/** Lifetime assumed for a token without a JWT `exp` (the service's documented 24 h). */
export const defaultTokenLifetimeMs = 24 * 60 * 60 * 1000;
const maxRefreshMarginMs = 60_000;
/**
 * How long a refused login (a wrong password, a locked account, a host store that cannot log in)
 * is answered from memory. One outage makes several parts ask at once or one after the other (the
 * socket, the task list, a catch-up read): they all get the one refusal, and the service sees one
 * failed login, not one per part (accounts lock after repeated failures). A retry after this long
 * (a resume, a reactivation) tries again.
 */
export const refusedLoginHoldMs = 30_000;
/**
 * After an early refresh failed while the token is still valid, how long the token is used
 * before the next try. Every request asked for a token meanwhile and each one logged in again (a
 * query reading pages near the token's end: a login and a warning per page).
 */
export const refreshRetryMs = 5_000;

/**
 * Hands out the access token. With credentials it logs in once, caches the token, refreshes it
 * shortly before its `exp` and lets only one login run at a time; it never logs in per request.
 */
export class TokenProvider {
  readonly canRefresh: boolean;
  private token: string | undefined;
  private expiresAt = 0;
  private refreshAt = 0;
  private pending: Promise<string> | undefined;
  /** The token the service refused last, until the host has handed out another. */
  private rejected: string | undefined;
  /** The last refused login and when it was refused (see `refusedLoginHoldMs`). */
  private refused: { error: unknown; at: number } | undefined;
  /** The token whose failed refresh was logged: said once per token, not once per try. */
  private refreshFailureLogged: string | undefined;

  constructor(private readonly options: TokenProviderOptions) {
    this.canRefresh = !('token' in options.auth);
    if ('token' in options.auth) this.token = options.auth.token;
  }

  /** The cached token if it is still valid, without logging in (for synchronous URL signing). */
  current(): string | undefined {
    if (!this.canRefresh) return this.token;
    return this.token !== undefined && this.options.clock.now() < this.expiresAt ? this.token : undefined;
  }

  /** A valid token; logs in when there is none, it is about to expire, or `forceRefresh` is set. */
  async get(options: { forceRefresh?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    if (!this.canRefresh) return this.token as string;
    const now = this.options.clock.now();
    if (!options.forceRefresh && this.token !== undefined && now < this.refreshAt) return this.token;
    const stillValid = !options.forceRefresh && this.token !== undefined && now < this.expiresAt;
    try {
      return await this.waitFor(this.refresh(), options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      // Refreshing early failed but the old token has not expired: keep using it, and try again
      // a little later (not at every request meanwhile), up to its expiry.
      const after = this.options.clock.now();
      if (stillValid && this.token !== undefined && after < this.expiresAt) {
        this.refreshAt = Math.min(this.expiresAt, after + refreshRetryMs);
        if (this.refreshFailureLogged !== this.token) {
          this.refreshFailureLogged = this.token;
          this.options.logger.warn('token refresh failed; using the current token until it expires', {
            error: error instanceof Error ? error.message : String(error),
          });
        }
        return this.token;
      }
      throw error;
    }
  }

  /** Forgets `token` after the server refused it, so the next `get` logs in (or asks the host) again. */
  invalidate(token: string): void {
    if (this.canRefresh && this.token === token) {
      this.rejected = token;
      this.token = undefined;
      this.expiresAt = 0;
      this.refreshAt = 0;
    }
  }

  private refresh(): Promise<string> {
    const { refused } = this;
    if (refused && this.options.clock.now() - refused.at < refusedLoginHoldMs) {
      return Promise.reject(refused.error);
    }
    // Single flight: every caller waiting for a token shares one login.
    this.pending ??= this.loginOnce()
      .then(
        (token) => {
          this.refused = undefined;
          return token;
        },
        (error: unknown) => {
          if (AuthError.isInstance(error)) this.refused = { error, at: this.options.clock.now() };
          throw error;
        },
      )
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  private async loginOnce(): Promise<string> {
    const { auth } = this.options;
    if ('getToken' in auth) return this.askHost(auth.getToken);
    const started = this.options.clock.now();
    this.options.logger.debug('logging in to the observation service');
    const token = await this.options.login();
    const times = readJwtTimes(token);
    const now = this.options.clock.now();
    // Use the token's own lifetime (exp - iat) on the local clock, so clock skew between client
    // and server does not make us refresh too late; fall back to exp, then to 24 h.
    let lifetime: number;
    if (times.expiresAt !== undefined && times.issuedAt !== undefined && times.expiresAt > times.issuedAt) {
      // Claims have whole seconds: the token may have been issued up to 1 s after `iat`, so take
      // the shortest lifetime the claims allow.
      lifetime = times.expiresAt - times.issuedAt - 1_000;
    } else if (times.expiresAt !== undefined) {
      lifetime = times.expiresAt - now;
    } else {
      lifetime = defaultTokenLifetimeMs;
    }
    lifetime = Math.max(0, lifetime);
    const margin = Math.min(maxRefreshMarginMs, lifetime * 0.1);
    this.token = token;
    this.expiresAt = started + lifetime;
    this.refreshAt = started + lifetime - margin;
    this.options.logger.debug('logged in', { validForMs: Math.round(lifetime) });
    return token;
  }

  private async askHost(getToken: (request: TokenRequest) => Promise<string>): Promise<string> {
    const rejected = this.rejected;
    const token: unknown = await getToken(rejected === undefined ? {} : { rejected });
    if (typeof token !== 'string' || token.trim() === '') {
      // Never the value itself: a wrong-shaped answer may still hold a secret.
      const got =
        typeof token === 'string' ? 'a blank string' : token === null ? 'null' : `a ${typeof token}`;
      throw new AuthError(`auth.getToken gave no access token (got ${got}); expected a non-empty string`);
    }
    // The host knows when its token expires (and may share it with other processes): core keeps
    // it until the service refuses it.
    this.token = token;
    this.expiresAt = Number.POSITIVE_INFINITY;
    this.refreshAt = Number.POSITIVE_INFINITY;
    this.rejected = undefined;
    return token;
  }

  private waitFor<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (!signal) return promise;
    if (signal.aborted) return Promise.reject(abortReason(signal));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(abortReason(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }
}
