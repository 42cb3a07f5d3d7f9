import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, control, Listener, realtimeUrl, upgradeAnswer } from '../testing/sim-client.js';

describe('POST /__control/<action>', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ historySize: 10 });
  });
  afterEach(() => sim.control.reset());
  afterAll(() => sim.stop());

  it('info and stats tell another process how to reach the simulator', async () => {
    const info = await control<{ ok: boolean; result: Record<string, unknown> }>(sim, 'info');
    expect(info.body.result).toMatchObject({
      siteUrl: sim.siteUrl,
      apiUrl: sim.apiUrl,
      wsUrl: sim.wsUrl,
      serviceId: sim.serviceId,
      token: sim.token,
      form: 'both',
    });
    expect(info.text).not.toContain(sim.credentials.password);
    const stats = await fetch(`${sim.siteUrl}/__control/stats`);
    expect(((await stats.json()) as { result: { historySize: number } }).result.historySize).toBe(10);
  });

  it('emit pushes events to sockets and history; setRate and setTaskStatus act on the world', async () => {
    const listener = await Listener.open(realtimeUrl(sim, '5'));
    const emitted = await control<{ result: { emitted: number; historySize: number } }>(sim, 'emit', {
      count: 3,
      taskIds: [5],
    });
    expect(emitted.body.result).toEqual({ emitted: 3, historySize: 13, lastId: 13 });
    expect((await listener.waitFor(3)).length).toBe(3);
    listener.close();
    expect((await control(sim, 'setRate', { eventsPerSecond: 5 })).status).toBe(200);
    expect(sim.control.stats().rate).toBe(5);
    await control(sim, 'setRate', { rate: 0 });
    await control(sim, 'setTaskStatus', { taskId: 5, status: 'non-operating, finished' });
    expect((await call<{ status: string }>(sim, '/tasks/5')).body.status).toBe('non-operating, finished');
  });

  it('emit takes latenessMs (a chosen late event, then an on-time sentinel); cameraLatencyMs and the counters are reachable', async () => {
    const listener = await Listener.open(realtimeUrl(sim, '0'));
    const emit = async (latenessMs: number) =>
      (await control<{ result: { lastId: number } }>(sim, 'emit', { count: 1, taskIds: [1], latenessMs }))
        .body.result.lastId;
    const ids = [await emit(0), await emit(90_000), await emit(0)];
    const frames = (await listener.waitFor(3)).map(
      (text) => JSON.parse(text) as { id: number; timestamp: string },
    );
    listener.close();
    expect(frames.map((frame) => frame.id)).toEqual(ids);
    expect(
      Date.parse(frames[2]?.timestamp ?? '') - Date.parse(frames[1]?.timestamp ?? ''),
    ).toBeGreaterThanOrEqual(89_000);
    // The late event is older than the one recorded before it: one out of order.
    const stats = await control<{ result: Record<string, number> }>(sim, 'stats');
    expect(stats.body.result).toMatchObject({
      lateEventsPublished: 1,
      eventsOutOfOrder: 1,
      historySeeded: 10,
    });
    const latency = await control<{ result: unknown }>(sim, 'cameraLatencyMs', { cameraId: 101 });
    expect(latency.body.result).toEqual({ cameraId: 101, latencyMs: 0 });
    const bad = await control<{ detail: string }>(sim, 'emit', { count: 1, latenessMs: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('latenessMs must be an integer >= 0');
  });

  it('fault actions reach the simulator', async () => {
    await control(sim, 'failNext', { count: 1, status: 502, retryAfterSeconds: 2 });
    const failed = await call(sim, '/tasks');
    expect(failed.status).toBe(502);
    expect(failed.headers.get('retry-after')).toBe('2');
    await control(sim, 'refuseConnections', { ms: 5000 });
    expect((await upgradeAnswer(realtimeUrl(sim, '0'))).status).toBe(503);
    await control(sim, 'reset');
    expect((await upgradeAnswer(realtimeUrl(sim, '0'))).status).toBe(101);

    const listener = await Listener.open(realtimeUrl(sim, '0'));
    await control(sim, 'sendMalformed', { kind: 'missing-fields', count: 2 });
    expect((await listener.waitFor(2)).length).toBe(2);
    await control(sim, 'closeWith', { code: 4002, reason: 'bye' });
    expect(await listener.closed).toEqual({ code: 4002, reason: 'bye' });

    const dropped = await Listener.open(realtimeUrl(sim, '0'));
    await control(sim, 'dropConnections');
    expect((await dropped.closed).code).toBe(1006);

    const halfOpen = await Listener.open(realtimeUrl(sim, '0'));
    await control(sim, 'halfOpen');
    await sim.control.emit(2);
    expect(halfOpen.messages).toEqual([]);
    halfOpen.close();

    const oldToken = sim.token;
    const expired = await control<{ result: { token: string } }>(sim, 'expireTokens');
    expect(expired.body.result.token).toBe(sim.token);
    expect((await call(sim, '/tasks', { token: oldToken })).status).toBe(401);

    await control(sim, 'delayResponses', { ms: 0 });
    const added = await control<{ result: { id: number } }>(sim, 'addTask', {
      task: { name: 'From HTTP', events: [2005] },
    });
    expect((await call<{ name: string }>(sim, `/tasks/${added.body.result.id}`)).body.name).toBe('From HTTP');
    await control(sim, 'removeTask', { taskId: added.body.result.id });
    expect((await call(sim, `/tasks/${added.body.result.id}`)).status).toBe(404);
  });

  it('bad requests get clear 400/404/405 answers', async () => {
    const unknown = await control<{ detail: string }>(sim, 'explode');
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('dropConnections');
    const badBody = await control<{ detail: string }>(sim, 'failNext', { count: 'two', status: 500 });
    expect(badBody.status).toBe(400);
    expect(badBody.body.detail).toBe('"count" must be a number, got "two"');
    const badValue = await control<{ detail: string }>(sim, 'setTaskStatus', {
      taskId: 404,
      status: 'video',
    });
    expect(badValue.status).toBe(400);
    expect(badValue.body.detail).toMatch(/no task with id 404/);
    expect((await fetch(`${sim.siteUrl}/__control/reset`)).status).toBe(405);
  });

  it('can be switched off', async () => {
    const closed = await startSimulator({ historySize: 1, controlEndpoint: false });
    try {
      expect((await control(closed, 'stats').catch(() => ({ status: 0 }))).status).not.toBe(200);
      expect((await fetch(`${closed.siteUrl}/__control/stats`)).status).toBe(404);
    } finally {
      await closed.stop();
    }
  });
});
