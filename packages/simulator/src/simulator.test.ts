import { describe, expect, it } from 'vitest';
import { startSimulator } from './simulator.js';
import { call } from './testing/sim-client.js';

describe('startSimulator', () => {
  it('rejects bad options with messages naming the option, the value and what is allowed', async () => {
    await expect(startSimulator({ form: 'modern' as never })).rejects.toThrow(
      'startSimulator: form must be one of basic, extended, both, got "modern"',
    );
    await expect(startSimulator({ port: -1 })).rejects.toThrow(
      'port must be an integer from 0 to 65535, got -1',
    );
    await expect(startSimulator({ rate: Number.NaN })).rejects.toThrow('rate must be a number >= 0');
    await expect(startSimulator({ prefix: 'apiserver' })).rejects.toThrow(/prefix must be/);
    await expect(startSimulator({ historyEnd: 'someday' })).rejects.toThrow(/historyEnd must be a date/);
    await expect(startSimulator({ serviceId: 'a/b' })).rejects.toThrow(/serviceId/);
    await expect(startSimulator({ credentials: { email: '', password: 'x' } })).rejects.toThrow(
      /credentials/,
    );
  });

  it('listening on every interface still hands out loopback URLs that work', async () => {
    const sim = await startSimulator({ host: '0.0.0.0', historySize: 1 });
    try {
      expect(sim.siteUrl).toBe(`http://127.0.0.1:${sim.port}`);
      expect((await call(sim, '/tasks')).status).toBe(200);
    } finally {
      await sim.stop();
      await sim.stop(); // idempotent
    }
  });

  it('world is a read-only view: changing a copy does not change the server', async () => {
    const sim = await startSimulator({
      historySize: 1,
      serviceId: 'my-workspace',
      credentials: { email: 'a@b.c', password: 'pw' },
    });
    try {
      const tasks = sim.world.tasks;
      (tasks[0] as { name: string }).name = 'changed';
      expect(sim.world.tasks[0]?.name).not.toBe('changed');
      expect(sim.serviceId).toBe('my-workspace');
      const login = await call(sim, '/users/token', {
        token: null,
        body: { email: 'a@b.c', password: 'pw' },
      });
      expect(login.status).toBe(200);
    } finally {
      await sim.stop();
    }
  });

  it('the default service id depends only on the seed', async () => {
    const [a, b, c] = await Promise.all([
      startSimulator({ seed: 5, historySize: 0 }),
      startSimulator({ seed: 5, historySize: 0 }),
      startSimulator({ seed: 6, historySize: 0 }),
    ]);
    try {
      expect(a.serviceId).toBe(b.serviceId);
      expect(a.serviceId).not.toBe(c.serviceId);
      expect(a.serviceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
      expect((await call<unknown[]>(a, '/events/history')).body).toEqual([]);
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()]);
    }
  });
});
