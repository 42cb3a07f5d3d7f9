/** Sliding-window rate limit of the login endpoint, as deployments rate-limit POST /users/token. */
export interface RateLimit {
  max: number;
  windowMs: number;
}

export class LoginLimiter {
  #attempts: number[] = [];
  readonly #limit: RateLimit;

  constructor(limit: RateLimit) {
    this.#limit = limit;
  }

  /** Counts an attempt; when over the limit returns the seconds to wait (Retry-After). */
  attempt(nowMs: number): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const windowStart = nowMs - this.#limit.windowMs;
    this.#attempts = this.#attempts.filter((time) => time > windowStart);
    if (this.#attempts.length >= this.#limit.max) {
      const oldest = this.#attempts[0] ?? nowMs;
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.#limit.windowMs - nowMs) / 1000)),
      };
    }
    this.#attempts.push(nowMs);
    return { allowed: true };
  }

  reset(): void {
    this.#attempts = [];
  }
}
