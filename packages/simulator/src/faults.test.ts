import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HUGE_FRAME_BYTES } from './realtime/malformed-frames.js';
import { type Simulator, startSimulator } from './simulator.js';
import { call, Listener, realtimeUrl, settle, upgradeAnswer } from './testing/sim-client.js';

describe('faults through control', () => {
  let sim: Simulator;
  const open: Listener[] = [];
  const listen = async (selection = '0') => {
    const listener = await Listener.open(realtimeUrl(sim, selection));
    open.push(listener);
    return listener;
  };
  beforeAll(async () => {
    sim = await startSimulator({ historySize: 20 });
  });
  afterEach(() => {
    for (const listener of open.splice(0)) listener.close();
    sim.control.reset();
  });
  afterAll(() => sim.stop());

  it('dropConnections cuts every socket without a close frame (1006)', async () => {
    const [a, b] = [await listen(), await listen('basic:1')];
    expect(sim.control.stats().openSockets).toBe(2);
    sim.control.dropConnections();
    expect((await a.closed).code).toBe(1006);
    expect((await b.closed).code).toBe(1006);
    await settle(50);
    expect(sim.control.stats().openSockets).toBe(0);
  });

  it('closeWith sends a close frame with the code and reason; invalid codes are refused', async () => {
    const listener = await listen();
    sim.control.closeWith(4001, 'maintenance');
    expect(await listener.closed).toEqual({ code: 4001, reason: 'maintenance' });
    expect(() => sim.control.closeWith(1006)).toThrow(/dropConnections/);
    expect(() => sim.control.closeWith(2000)).toThrow(/1000-1014/);
  });

  it('refuseConnections answers upgrades 503 with Retry-After for the window, open sockets stay', async () => {
    const before = await listen();
    sim.control.refuseConnections(400);
    const refused = await upgradeAnswer(realtimeUrl(sim, '0'));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(before.ws.readyState).toBe(1);
    await settle(450);
    expect((await upgradeAnswer(realtimeUrl(sim, '0'))).status).toBe(101);
  });

  it('halfOpen keeps the TCP socket but sends no events and no pongs; new sockets are normal', async () => {
    const stale = await listen();
    sim.control.halfOpen();
    let ponged = false;
    stale.ws.on('pong', () => {
      ponged = true;
    });
    stale.ws.ping();
    const fresh = await listen();
    await sim.control.emit(3, { taskIds: [1] });
    await fresh.waitFor(3);
    fresh.ws.ping();
    await once(fresh.ws, 'pong');
    await settle(100);
    expect(stale.messages).toEqual([]);
    expect(ponged).toBe(false);
    expect(stale.ws.readyState).toBe(1);
    expect(sim.control.stats().openSockets).toBe(2);
    // reset() brings the half-open socket back to life.
    sim.control.reset();
    await sim.control.emit(1, { taskIds: [1] });
    await stale.waitFor(1);
  });

  it('sendMalformed sends each kind of broken frame, and events keep flowing after', async () => {
    const listener = await listen();
    sim.control.sendMalformed('not-json', 3);
    sim.control.sendMalformed('wrong-types');
    sim.control.sendMalformed('missing-fields');
    sim.control.sendMalformed('huge');
    await sim.control.emit(1, { taskIds: [1] });
    const messages = await listener.waitFor(7);
    for (const text of messages.slice(0, 3)) expect(() => JSON.parse(text)).toThrow();
    const wrong = JSON.parse(messages[3] as string) as Record<string, unknown>;
    expect(typeof wrong.task_id).toBe('string');
    expect(typeof wrong.detected_objects).toBe('string');
    const missing = JSON.parse(messages[4] as string) as Record<string, unknown>;
    expect(missing).not.toHaveProperty('task_id');
    expect(missing).not.toHaveProperty('timestamp');
    expect(Buffer.byteLength(messages[5] as string)).toBe(HUGE_FRAME_BYTES);
    expect((JSON.parse(messages[6] as string) as { task_id: number }).task_id).toBe(1);
    expect(() => sim.control.sendMalformed('weird' as never)).toThrow(/not-json/);
  });

  it('failNext answers the next N REST calls with the status (and Retry-After), then recovers', async () => {
    const failedBefore = sim.control.stats().requestsFailed;
    sim.control.failNext(2, 503, { retryAfterSeconds: 3 });
    const first = await call(sim, '/tasks');
    const second = await call(sim, '/events/history');
    const third = await call(sim, '/tasks');
    expect([first.status, second.status, third.status]).toEqual([503, 503, 200]);
    expect(first.headers.get('retry-after')).toBe('3');
    expect(first.body).toEqual({ detail: 'Simulated failure (HTTP 503)' });
    sim.control.failNext(1, 429);
    const limited = await call(sim, '/users/token', { token: null, body: sim.credentials });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeNull();
    // What the service saw fail: the three refused calls, not the one answered.
    expect(sim.control.stats().requestsFailed - failedBefore).toBe(3);
    expect(() => sim.control.failNext(1, 200)).toThrow(/400-599/);
  });

  it('delayResponses delays REST answers until turned off', async () => {
    sim.control.delayResponses(300);
    let started = Date.now();
    expect((await call(sim, '/tasks')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // Turned off, a request no longer waits (a long delay makes this robust on a busy machine).
    sim.control.delayResponses(10_000);
    sim.control.delayResponses(0);
    started = Date.now();
    await call(sim, '/tasks');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('setTaskStatus, addTask and removeTask change what REST serves and what can be emitted', async () => {
    sim.control.setTaskStatus(1, 'operating, disconnected');
    expect((await call<{ status: string }>(sim, '/tasks/1')).body.status).toBe('operating, disconnected');
    sim.control.setTaskStatus(1, 'brand-new-status');
    expect((await call<{ status: string }>(sim, '/tasks/1')).body.status).toBe('brand-new-status');
    expect(() => sim.control.setTaskStatus(999, 'video')).toThrow(/no task with id 999/);

    const added = sim.control.addTask({
      name: 'Dock camera',
      events: [2003, 2004],
      location_id: 12,
      tenant: 'extra',
    });
    const served = await call<Record<string, unknown>>(sim, `/tasks/${added.id}`);
    expect(served.body).toMatchObject({
      id: added.id,
      name: 'Dock camera',
      location_id: 12,
      tenant: 'extra',
    });
    expect((served.body.events as Array<{ id: number }>).map((e) => e.id)).toEqual([2003, 2004]);
    const listener = await listen(String(added.id));
    const [event] = await sim.control.emit(1, { taskIds: [added.id] });
    expect(JSON.parse((await listener.waitFor(1))[0] as string).id).toBe(event?.id);
    expect(() => sim.control.addTask({ events: [1] })).toThrow(/event type 1 is unknown/);

    sim.control.removeTask(added.id);
    expect((await call(sim, `/tasks/${added.id}`)).status).toBe(404);
    // Its past events stay in history.
    expect((await call<unknown[]>(sim, `/events/history?ids=${event?.id}`)).body).toHaveLength(1);
    await expect(sim.control.emit(1, { taskIds: [added.id] })).rejects.toThrow(/no task/);
  });

  it('stats counts sockets, connections, requests, logins and emitted events; reset clears them', async () => {
    sim.control.reset();
    const listener = await listen();
    await call(sim, '/tasks');
    await call(sim, '/users/token', { token: null, body: sim.credentials });
    await sim.control.emit(5);
    await listener.waitFor(5);
    expect(sim.control.stats()).toMatchObject({
      openSockets: 1,
      connectionsTotal: 1,
      requests: 2,
      logins: 1,
      eventsEmitted: 5,
    });
    sim.control.reset();
    expect(sim.control.stats()).toMatchObject({
      connectionsTotal: 0,
      requests: 0,
      logins: 0,
      eventsEmitted: 0,
    });
  });

  it('reset restores the seeded tasks and statuses and turns faults off', async () => {
    const seeded = sim.world.tasks;
    sim.control.setTaskStatus(2, 'video');
    sim.control.removeTask(3);
    sim.control.addTask();
    sim.control.failNext(5, 500);
    sim.control.delayResponses(1000);
    sim.control.refuseConnections(10_000);
    sim.control.reset();
    expect(sim.world.tasks).toEqual(seeded);
    expect((await call(sim, '/tasks')).status).toBe(200);
    expect((await upgradeAnswer(realtimeUrl(sim, '0'))).status).toBe(101);
  });
});
