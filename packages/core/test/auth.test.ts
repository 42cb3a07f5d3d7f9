import { describe, expect, it } from 'vitest';
import {
  AuthError,
  createClient,
  createUndiciTransport,
  HttpError,
  type HttpTransport,
} from '../src/index.js';
import { client, optionsFor, simulator, waiter } from './helpers.js';

describe('authentication against the simulator', () => {
  it('logs in once with email and password and reuses the token for every request', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(optionsFor(sim, { auth: sim.credentials }));
    await Promise.all([c.tasks.list(), c.locations.list(), c.events.history({ limit: 5 }), c.tasks.get(1)]);
    for (let i = 0; i < 5; i++) await c.tasks.list();
    expect(sim.control.stats().logins).toBe(1);
  });

  it('refreshes a short-lived token shortly before it expires, without a 401 round trip', async () => {
    const sim = await simulator({ form: 'extended', tokenLifetimeMs: 2_000 });
    const c = client(optionsFor(sim, { auth: sim.credentials }));
    await c.tasks.list();
    expect(sim.control.stats().logins).toBe(1);
    const requestsBefore = sim.control.stats().requests;
    await new Promise((resolve) => setTimeout(resolve, 1_900));
    await c.tasks.list();
    expect(sim.control.stats().logins).toBe(2);
    // One login and one GET: the old token was not tried first.
    expect(sim.control.stats().requests - requestsBefore).toBe(2);
  });

  it('logs in again once after a 401 and repeats the request', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(optionsFor(sim, { auth: sim.credentials }));
    await c.tasks.list();
    sim.control.expireTokens();
    const tasks = await c.tasks.list();
    expect(tasks.length).toBeGreaterThan(0);
    expect(sim.control.stats().logins).toBe(2);
  });

  it('fails with an AuthError when the re-login does not help', async () => {
    const sim = await simulator({ form: 'extended' });
    // The simulator cannot refuse a freshly issued token (failNext would also hit the login), so
    // this wrapper around the real undici transport spoils the token of every GET on its way out.
    const real = createUndiciTransport();
    const spoiling: HttpTransport = {
      request: (req) =>
        real.request(
          req.method === 'GET'
            ? { ...req, headers: { ...req.headers, authorization: 'Bearer spoiled' } }
            : req,
        ),
      close: () => real.close?.() ?? Promise.resolve(),
    };
    const c = client(optionsFor(sim, { auth: sim.credentials, transport: spoiling }));
    const error = await c.tasks.list().catch((e: unknown) => e);
    expect(AuthError.isInstance(error)).toBe(true);
    expect((error as AuthError).status).toBe(401);
    expect(sim.control.stats().logins).toBe(2);
    await real.close?.();
  });

  it('a refused static token is an AuthError right away (nothing to refresh)', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(optionsFor(sim));
    sim.control.expireTokens();
    const error = await c.tasks.list().catch((e: unknown) => e);
    expect(AuthError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/HTTP 401: Could not validate credentials|Token has expired/);
    expect(sim.control.stats().logins).toBe(0);
  });

  it('a wrong password is an AuthError that never shows the password', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(
      optionsFor(sim, { auth: { email: sim.credentials.email, password: 'Wrong-Secret-123' } }),
    );
    const error = await c.tasks.list().catch((e: unknown) => e);
    expect(AuthError.isInstance(error)).toBe(true);
    expect(JSON.stringify({ m: (error as Error).message, c: String((error as Error).cause) })).not.toContain(
      'Wrong-Secret-123',
    );
  });

  it('a wrong service id (403) is an AuthError without a re-login', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(optionsFor(sim, { auth: sim.credentials, serviceId: 'not-this-workspace' }));
    const error = await c.tasks.list().catch((e: unknown) => e);
    expect(AuthError.isInstance(error)).toBe(true);
    expect((error as AuthError).status).toBe(403);
    expect((error as Error).message).toContain('Unknown service id');
    expect(sim.control.stats().logins).toBe(1);
  });

  it('a rate-limited login surfaces as HTTP 429 with Retry-After, not as bad credentials', async () => {
    const sim = await simulator({ form: 'extended', loginRateLimit: { max: 1, windowMs: 60_000 } });
    const first = client(optionsFor(sim, { auth: sim.credentials }));
    await first.tasks.list();
    const second = client(optionsFor(sim, { auth: sim.credentials }));
    const error = await second.tasks.list().catch((e: unknown) => e);
    expect(HttpError.isInstance(error)).toBe(true);
    expect((error as HttpError).status).toBe(429);
    expect((error as HttpError).retryAfterMs).toBeGreaterThan(0);
    expect(AuthError.isInstance(error)).toBe(false);
  });
});

describe('one login, however many sockets', () => {
  it('ten realtime sockets refused at once (expired token) share one renewal with REST', async () => {
    const sim = await simulator({ form: 'basic', historySize: 0 });
    const c = client({ ...optionsFor(sim, { form: 'basic', auth: sim.credentials }), serviceId: undefined });
    const taskIds = sim.world.tasks.map((task) => task.id).slice(0, 10);
    expect(taskIds).toHaveLength(10);
    const received: number[] = [];
    const sub = c.events.subscribe(
      taskIds,
      { onEvent: () => void received.push(1) },
      { backoff: { baseMs: 2, maxMs: 20 } },
    );
    const until = waiter(15_000);
    await until(() => sub.state === 'open' && sim.control.stats().openSockets === 10, 'ten open sockets');
    expect(sim.control.stats().logins).toBe(1);
    // Every socket is cut and comes back with a token the service no longer accepts.
    sim.control.expireTokens();
    sim.control.dropConnections();
    await until(() => sub.stats.reconnects >= 10 && sub.state === 'open', 'ten reconnects');
    await c.tasks.list();
    expect(sim.control.stats().logins).toBe(2);
    const [sentinel] = await sim.control.emit(1, { taskIds: [taskIds[9] as number] });
    expect(sentinel).toBeDefined();
    await until(() => received.length === 1, 'an event on the renewed token');
    await sub.close();
  });
});

describe('a token kept by the host (auth.getToken)', () => {
  /**
   * A host's credential store as several processes of one host would share it: one token, a
   * login only when the store is empty or still holds the token the service refused.
   */
  function hostStore(sim: Awaited<ReturnType<typeof simulator>>) {
    const store = { token: undefined as string | undefined, asked: [] as Array<string | undefined> };
    let renewing: Promise<string> | undefined;
    const login = async () => {
      const response = await fetch(`${sim.apiUrl}/users/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sim.credentials),
      });
      store.token = ((await response.json()) as { access_token: string }).access_token;
      return store.token;
    };
    const getToken = async ({ rejected }: { rejected?: string }) => {
      store.asked.push(rejected);
      if (store.token !== undefined && store.token !== rejected) return store.token;
      // The store renews once for everyone who finds it empty or holding the refused token.
      renewing ??= login().finally(() => {
        renewing = undefined;
      });
      return renewing;
    };
    return { store, getToken };
  }

  it('two clients (two processes) share one login through the host, for REST, media and realtime', async () => {
    const sim = await simulator({ form: 'extended', historySize: 5 });
    const { store, getToken } = hostStore(sim);
    const a = client(optionsFor(sim, { auth: { getToken } }));
    const b = client(optionsFor(sim, { auth: { getToken } }));
    await Promise.all([a.tasks.list(), a.locations.list(), b.tasks.list(), b.events.history({ limit: 2 })]);
    const [event] = await b.events.history({ limit: 1 });
    const signed = await a.media.signUrl(event?.imageUrl ?? '');
    expect(new URL(signed).searchParams.get('auth_token')).toBe(store.token);
    const received: number[] = [];
    const sub = a.events.subscribe('all', { onEvent: (e) => void received.push(e.eventTypeId ?? 0) });
    const started = Date.now();
    while (sub.state !== 'open') {
      if (Date.now() - started > 10_000) throw new Error('the subscription did not open');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(sim.control.stats().logins).toBe(1);
    expect(store.asked).toEqual([undefined, undefined]);
    await sub.close();
  });

  it('a refused token is renewed once through the host and the other client picks up the new one', async () => {
    const sim = await simulator({ form: 'extended' });
    const { store, getToken } = hostStore(sim);
    const a = client(optionsFor(sim, { auth: { getToken } }));
    const b = client(optionsFor(sim, { auth: { getToken } }));
    await Promise.all([a.tasks.list(), b.tasks.list()]);
    const old = store.token;
    sim.control.expireTokens();
    await Promise.all([a.tasks.list(), a.locations.list()]);
    expect(sim.control.stats().logins).toBe(2);
    await b.tasks.list();
    // b was refused with the old token too, and found the renewed one in the store.
    expect(sim.control.stats().logins).toBe(2);
    expect(store.asked.slice(2)).toEqual([old, old]);
  });

  it('a getToken that is not a function is refused by name', () => {
    const sim = { siteUrl: 'http://127.0.0.1:1', serviceId: 'x', token: 't' };
    expect(() => createClient({ ...optionsFor(sim as never), auth: { getToken: 'nope' } as never })).toThrow(
      /auth\.getToken: got "nope"; expected .*\{ getToken \} with a function/,
    );
  });
});
