import { describe, expect, it } from 'vitest';
import { AuthError } from '../errors/auth-error.js';
import type { Clock } from '../ports.js';
import { completeLogger } from '../ports.js';
import { readJwtTimes } from './jwt-expiry.js';
import {
  defaultTokenLifetimeMs,
  refreshRetryMs,
  refusedLoginHoldMs,
  TokenProvider,
} from './token-provider.js';

// Unit tests with an injected login function: they pin timing rules (refresh margin, 24 h
// default) that the simulator tests can only reach by waiting. Login over real sockets is
// covered in test/auth.test.ts.

function jwt(payload: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(payload)}.signature`;
}

function manualClock(start = 1_700_000_000_000): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    sleep: async () => undefined,
    advance(ms) {
      now += ms;
    },
  };
}

describe('readJwtTimes', () => {
  it('reads exp and iat in ms without verifying', () => {
    expect(readJwtTimes(jwt({ exp: 1000, iat: 900 }))).toEqual({ expiresAt: 1_000_000, issuedAt: 900_000 });
  });
  it('gives nothing for non-JWTs or missing/odd claims', () => {
    expect(readJwtTimes('opaque-token')).toEqual({});
    expect(readJwtTimes('a.b.c')).toEqual({});
    expect(readJwtTimes(jwt({ exp: 'soon' }))).toEqual({});
    expect(readJwtTimes(jwt({ sub: 'x' }))).toEqual({});
  });
});

describe('TokenProvider', () => {
  it('returns a static token as is and cannot refresh', async () => {
    const provider = new TokenProvider({
      auth: { token: 'static' },
      login: async () => {
        throw new Error('must not log in');
      },
      clock: manualClock(),
      logger: completeLogger(undefined),
    });
    expect(provider.canRefresh).toBe(false);
    expect(await provider.get({ forceRefresh: true })).toBe('static');
    expect(provider.current()).toBe('static');
  });

  it('logs in once for concurrent callers and reuses the token until shortly before exp', async () => {
    const clock = manualClock();
    let logins = 0;
    const provider = new TokenProvider({
      auth: { email: 'a@b.c', password: 'pw' },
      login: async () => {
        logins++;
        await new Promise((resolve) => setTimeout(resolve, 10));
        const iat = clock.now() / 1000;
        return jwt({ iat, exp: iat + 3600, n: logins });
      },
      clock,
      logger: completeLogger(undefined),
    });
    expect(provider.current()).toBeUndefined();
    const tokens = await Promise.all(Array.from({ length: 20 }, () => provider.get()));
    expect(logins).toBe(1);
    expect(new Set(tokens).size).toBe(1);
    // Lifetime is taken as exp - iat - 1 s (claims are whole seconds): 3599 s.
    clock.advance(3599_000 - 61_000);
    await provider.get();
    expect(logins).toBe(1);
    // Inside the last minute (10 % of the lifetime, capped at 60 s): refresh.
    clock.advance(2_000);
    await provider.get();
    expect(logins).toBe(2);
  });

  it('scales the refresh margin down for short-lived tokens', async () => {
    const clock = manualClock();
    let logins = 0;
    const provider = new TokenProvider({
      auth: { email: 'a@b.c', password: 'pw' },
      login: async () => {
        logins++;
        // 3 s in the claims → 2 s counted (whole-second claims), margin 10 % = 200 ms.
        return jwt({ iat: clock.now() / 1000, exp: clock.now() / 1000 + 3 });
      },
      clock,
      logger: completeLogger(undefined),
    });
    await provider.get();
    clock.advance(1_700);
    await provider.get();
    expect(logins).toBe(1);
    clock.advance(200);
    await provider.get();
    expect(logins).toBe(2);
  });

  it('assumes 24 h when the token has no exp', async () => {
    const clock = manualClock();
    let logins = 0;
    const provider = new TokenProvider({
      auth: { email: 'a@b.c', password: 'pw' },
      login: async () => {
        logins++;
        return `opaque-${logins}`;
      },
      clock,
      logger: completeLogger(undefined),
    });
    await provider.get();
    clock.advance(defaultTokenLifetimeMs - 120_000);
    expect(await provider.get()).toBe('opaque-1');
    clock.advance(70_000);
    expect(await provider.get()).toBe('opaque-2');
  });

  /**
   * A provider with credentials whose logins give tokens valid `lifetimeS`, or fail while
   * `login.fail` is set; `login.count` counts them, `warnings` collects what it warned.
   */
  function failingLoginProvider(lifetimeS: number) {
    const clock = manualClock();
    const login = { fail: false, count: 0 };
    const warnings: string[] = [];
    const provider = new TokenProvider({
      auth: { email: 'a@b.c', password: 'pw' },
      login: async () => {
        login.count++;
        if (login.fail) throw new Error('service unavailable');
        return jwt({ iat: clock.now() / 1000, exp: clock.now() / 1000 + lifetimeS });
      },
      clock,
      logger: completeLogger({ warn: (message) => warnings.push(message) }),
    });
    return { clock, login, warnings, provider };
  }

  it('keeps a still-valid token when an early refresh fails, and logs in again after invalidate', async () => {
    const { clock, login, warnings, provider } = failingLoginProvider(100);
    const first = await provider.get();
    clock.advance(95_000);
    login.fail = true;
    expect(await provider.get()).toBe(first);
    expect(warnings).toHaveLength(1);
    login.fail = false;
    provider.invalidate(first);
    expect(provider.current()).toBeUndefined();
    const second = await provider.get();
    expect(login.count).toBe(3);
    // invalidate with an old token does not throw away a newer one
    provider.invalidate(first);
    expect(provider.current()).toBe(second);
  });

  it('after a failed early refresh, tries again every few seconds (not at every request) and warns once', async () => {
    const { clock, login, warnings, provider } = failingLoginProvider(3600);
    const first = await provider.get();
    // Inside the refresh margin (the last minute), with the login down: a query reads page after page.
    clock.advance(3_600_000 - 50_000);
    login.fail = true;
    for (let page = 0; page < 20; page++) expect(await provider.get()).toBe(first);
    expect(login.count).toBe(2);
    clock.advance(refreshRetryMs - 1);
    expect(await provider.get()).toBe(first);
    expect(login.count).toBe(2);
    clock.advance(1);
    expect(await provider.get()).toBe(first);
    expect(login.count).toBe(3);
    expect(warnings).toEqual(['token refresh failed; using the current token until it expires']);
    // The login is back: the next try refreshes, and the new token's failure would be told again.
    login.fail = false;
    clock.advance(refreshRetryMs);
    const second = await provider.get();
    expect(second).not.toBe(first);
    expect(login.count).toBe(4);
    // Past the first token's expiry nothing is held back: the new token is used as it is.
    clock.advance(60_000);
    expect(await provider.get()).toBe(second);
    expect(login.count).toBe(4);
  });

  it('stops waiting when the caller aborts, and surfaces login errors when no token is valid', async () => {
    const provider = new TokenProvider({
      auth: { email: 'a@b.c', password: 'pw' },
      login: () => new Promise((_resolve, reject) => setTimeout(() => reject(new Error('down')), 50)),
      clock: manualClock(),
      logger: completeLogger(undefined),
    });
    const controller = new AbortController();
    const waiting = provider.get({ signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
    await expect(provider.get()).rejects.toThrow('down');
  });
});

describe('TokenProvider after a refused login', () => {
  function refusingProvider(error: () => Error) {
    const clock = manualClock();
    let logins = 0;
    const provider = new TokenProvider({
      auth: { email: 'a@b.c', password: 'not-it' },
      login: async () => {
        logins++;
        throw error();
      },
      clock,
      logger: completeLogger(undefined),
    });
    return { provider, clock, logins: () => logins };
  }

  it('answers every caller of one outage with the one refusal, then tries again after the hold', async () => {
    const { provider, clock, logins } = refusingProvider(
      () => new AuthError('The service refused the login (HTTP 401)', { status: 401 }),
    );
    await expect(provider.get()).rejects.toThrow('refused the login');
    // The socket, the task list and a catch-up read ask one after the other: no second login.
    await expect(provider.get()).rejects.toThrow('refused the login');
    await expect(provider.get({ forceRefresh: true })).rejects.toThrow('refused the login');
    clock.advance(refusedLoginHoldMs - 1);
    await expect(provider.get()).rejects.toThrow('refused the login');
    expect(logins()).toBe(1);
    clock.advance(1);
    await expect(provider.get()).rejects.toThrow('refused the login');
    expect(logins()).toBe(2);
  });

  it('holds nothing when the login failed for another reason (the service was unreachable)', async () => {
    const { provider, logins } = refusingProvider(() => new Error('ECONNREFUSED'));
    await expect(provider.get()).rejects.toThrow('ECONNREFUSED');
    await expect(provider.get()).rejects.toThrow('ECONNREFUSED');
    expect(logins()).toBe(2);
  });
});

describe('TokenProvider with a host that keeps the token', () => {
  function hostProvider(answers: Array<string | Promise<string>>) {
    const requests: Array<{ rejected?: string }> = [];
    const provider = new TokenProvider({
      auth: {
        getToken: async (request) => {
          requests.push(request);
          const next = answers.shift();
          if (next === undefined) throw new Error('the host has no more tokens');
          return next;
        },
      },
      login: async () => {
        throw new Error('must not log in itself');
      },
      clock: manualClock(),
      logger: completeLogger(undefined),
    });
    return { provider, requests };
  }

  it('asks the host once for every concurrent caller and keeps the token, however old', async () => {
    let release: (token: string) => void = () => undefined;
    const { provider, requests } = hostProvider([new Promise<string>((resolve) => (release = resolve))]);
    expect(provider.canRefresh).toBe(true);
    const waiting = Promise.all(Array.from({ length: 10 }, () => provider.get()));
    release(jwt({ iat: 1, exp: 2 }));
    const tokens = await waiting;
    expect(new Set(tokens).size).toBe(1);
    // An `exp` long past does not make core ask again: the host decides; the service's refusal tells.
    expect(await provider.get()).toBe(tokens[0]);
    expect(provider.current()).toBe(tokens[0]);
    expect(requests).toEqual([{}]);
  });

  it('after a refusal, asks again once with the refused token', async () => {
    const { provider, requests } = hostProvider(['first', 'second']);
    expect(await provider.get()).toBe('first');
    provider.invalidate('first');
    provider.invalidate('first');
    expect(provider.current()).toBeUndefined();
    const [a, b] = await Promise.all([provider.get(), provider.get()]);
    expect([a, b]).toEqual(['second', 'second']);
    expect(requests).toEqual([{}, { rejected: 'first' }]);
    // A late refusal of the old token does not throw away the new one.
    provider.invalidate('first');
    expect(await provider.get()).toBe('second');
    expect(requests).toHaveLength(2);
  });

  it('a blank answer is an AuthError that shows no value; a failing host is passed on', async () => {
    const blank = hostProvider(['  ']).provider;
    await expect(blank.get()).rejects.toThrow(/auth\.getToken gave no access token \(got a blank string\)/);
    const failing = hostProvider([]).provider;
    await expect(failing.get()).rejects.toThrow('the host has no more tokens');
  });
});
