import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, Listener, realtimeUrl, upgradeAnswer } from '../testing/sim-client.js';

function decodeClaims(token: string): Record<string, unknown> {
  const payload = token.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('REST authentication per form', () => {
  const sims: Record<'basic' | 'extended' | 'both', Simulator> = {} as never;
  beforeAll(async () => {
    for (const form of ['basic', 'extended', 'both'] as const)
      sims[form] = await startSimulator({ form, historySize: 50 });
  });
  afterAll(async () => {
    await Promise.all(Object.values(sims).map((sim) => sim.stop()));
  });

  it.each(['basic', 'extended', 'both'] as const)(
    '%s: no Authorization header → 401 with a Bearer challenge',
    async (form) => {
      const answer = await call(sims[form], '/tasks', { token: null });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ detail: 'Not authenticated' });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    },
  );

  it.each(['basic', 'extended', 'both'] as const)('%s: an invalid or malformed token → 401', async (form) => {
    const forged = `${sims[form].token.slice(0, -4)}AAAA`;
    for (const token of [forged, 'not-a-jwt']) {
      const answer = await call(sims[form], '/tasks', { token });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ detail: 'Could not validate credentials' });
    }
    const wrongScheme = await call(sims[form], '/tasks', {
      token: null,
      headers: { authorization: `Basic ${sims[form].token}` },
    });
    expect(wrongScheme.status).toBe(401);
  });

  it('extended: X-Service-Id missing or wrong → 403', async () => {
    const missing = await call(sims.extended, '/tasks', { as: 'basic' });
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({ detail: 'X-Service-Id header is required' });
    const wrong = await call(sims.extended, '/tasks', {
      headers: { 'x-service-id': 'someone-else' },
      as: 'basic',
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ detail: 'Unknown service id' });
    expect((await call(sims.extended, '/tasks')).status).toBe(200);
  });

  it('basic: knows no service id, so the header is ignored (even a wrong one)', async () => {
    expect((await call(sims.basic, '/tasks', { headers: { 'x-service-id': 'whatever' } })).status).toBe(200);
    expect((await call(sims.basic, '/tasks')).status).toBe(200);
  });

  it('both: the X-Service-Id header picks the form; a wrong one is still 403', async () => {
    const extended = await call<Array<Record<string, unknown>>>(sims.both, '/events/history?limit=1', {
      as: 'extended',
    });
    const basic = await call<Array<Record<string, unknown>>>(sims.both, '/events/history?limit=1', {
      as: 'basic',
    });
    expect(extended.body[0]).toHaveProperty('id');
    expect(basic.body[0]).not.toHaveProperty('id');
    const wrong = await call(sims.both, '/tasks', { headers: { 'x-service-id': 'nope' }, as: 'basic' });
    expect(wrong.status).toBe(403);
  });
});

describe('login (POST /users/token)', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({
      historySize: 10,
      loginRateLimit: { max: 5, windowMs: 60_000 },
      tokenLifetimeMs: 3_600_000,
    });
  });
  afterEach(() => sim.control.reset());
  afterAll(() => sim.stop());

  it('answers {access_token}: an HS256 JWT whose exp is the configured lifetime away, usable on REST and WebSocket', async () => {
    const before = Math.floor(Date.now() / 1000);
    const answer = await call<{ access_token: string }>(sim, '/users/token', {
      token: null,
      body: sim.credentials,
    });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['access_token']);
    const token = answer.body.access_token;
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeClaims(token);
    expect(claims.sub).toBe(sim.credentials.email);
    expect(claims.exp).toBeGreaterThanOrEqual(before + 3600);
    expect(claims.exp).toBeLessThanOrEqual(before + 3602);
    expect((await call(sim, '/tasks', { token })).status).toBe(200);
    const listener = await Listener.open(realtimeUrl(sim, '0', token));
    listener.close();
    expect(sim.control.stats().logins).toBe(1);
  });

  it('wrong credentials → 401; missing fields → 422 that never echoes the password', async () => {
    const wrong = await call(sim, '/users/token', {
      token: null,
      body: { email: sim.credentials.email, password: 'nope' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ detail: 'Incorrect email or password' });
    const missing = await call(sim, '/users/token', { token: null, body: { password: 'secret-value-123' } });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      detail: [{ type: 'missing', loc: ['body', 'email'], msg: 'Field required' }],
    });
    expect(missing.text).not.toContain('secret-value-123');
    const badJson = await fetch(`${sim.apiUrl}/users/token`, { method: 'POST', body: '{nope' });
    expect(badJson.status).toBe(422);
  });

  it('accepts the older client-credentials body and answers with token_type', async () => {
    const answer = await call<{ access_token: string; token_type: string }>(sim, '/users/token', {
      token: null,
      body: {
        grant_type: 'client_credentials',
        client_id: sim.credentials.email,
        client_secret: sim.credentials.password,
        audience: 'observ',
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.token_type).toBe('Bearer');
    expect((await call(sim, '/tasks', { token: answer.body.access_token })).status).toBe(200);
  });

  it('is rate-limited: over the limit → 429 with Retry-After, whether the attempts succeeded or not', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 6; n++) {
      const body = n % 2 === 0 ? sim.credentials : { email: 'x@y.z', password: 'wrong' };
      statuses.push((await call(sim, '/users/token', { token: null, body })).status);
    }
    expect(statuses).toEqual([200, 401, 200, 401, 200, 429]);
    const limited = await call(sim, '/users/token', { token: null, body: sim.credentials });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(sim.control.stats().logins).toBe(7);
  });
});

describe('token expiry', () => {
  it('tokens from login expire after tokenLifetimeMs (REST 401 "Token has expired", WebSocket refused 401)', async () => {
    const sim = await startSimulator({ historySize: 10, tokenLifetimeMs: 1000 });
    try {
      const login = await call<{ access_token: string }>(sim, '/users/token', {
        token: null,
        body: sim.credentials,
      });
      const token = login.body.access_token;
      expect((await call(sim, '/tasks', { token })).status).toBe(200);
      const exp = decodeClaims(token).exp as number;
      await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50));
      const expired = await call(sim, '/tasks', { token });
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual({ detail: 'Token has expired' });
      expect((await upgradeAnswer(realtimeUrl(sim, '0', token))).status).toBe(401);
      // The static token is long-lived on purpose: tests keep working.
      expect((await call(sim, '/tasks')).status).toBe(200);
    } finally {
      await sim.stop();
    }
  });

  it('expireTokens() ends every issued token, the static one too, and issues a new static token', async () => {
    const sim = await startSimulator({ historySize: 10, token: 'fixed-static-token' });
    try {
      expect((await call(sim, '/tasks', { token: 'fixed-static-token' })).status).toBe(200);
      const login = await call<{ access_token: string }>(sim, '/users/token', {
        token: null,
        body: sim.credentials,
      });
      const oldStatic = sim.token;
      const fresh = sim.control.expireTokens();
      expect(fresh).toBe(sim.token);
      expect(fresh).not.toBe(oldStatic);
      const afterLogin = await call(sim, '/tasks', { token: login.body.access_token });
      expect(afterLogin.status).toBe(401);
      expect(afterLogin.body).toEqual({ detail: 'Token has expired' });
      expect((await call(sim, '/tasks', { token: oldStatic })).status).toBe(401);
      expect((await upgradeAnswer(realtimeUrl(sim, '0', oldStatic))).status).toBe(401);
      expect((await call(sim, '/tasks')).status).toBe(200);
      expect((await upgradeAnswer(realtimeUrl(sim, '0'))).status).toBe(101);
      const relogin = await call<{ access_token: string }>(sim, '/users/token', {
        token: null,
        body: sim.credentials,
      });
      expect((await call(sim, '/tasks', { token: relogin.body.access_token })).status).toBe(200);
    } finally {
      await sim.stop();
    }
  });
});
