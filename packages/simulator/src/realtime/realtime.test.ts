import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Simulator, startSimulator } from '../simulator.js';
import { call, Listener, realtimeUrl, settle, upgradeAnswer } from '../testing/sim-client.js';

const BASIC_FORBIDDEN = ['id', 'location_id', 'camera_id', 'timezone', 'vlm', 'coordinates', 'note'];

describe('realtime subscription (form both)', () => {
  let sim: Simulator;
  const open: Listener[] = [];
  const listen = async (url: string) => {
    const listener = await Listener.open(url);
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

  it('extended `0` receives every task in the extended form, each event also in history with the same id', async () => {
    const all = await listen(realtimeUrl(sim, '0'));
    const emitted = await sim.control.emit(6, { taskIds: [1, 2, 3] });
    const received = (await all.waitFor(6)).map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(received.map((event) => event.task_id)).toEqual([1, 2, 3, 1, 2, 3]);
    expect(received.map((event) => event.id)).toEqual(emitted.map((event) => event.id));
    for (const event of received) {
      expect(event).toHaveProperty('timezone');
      expect(event).not.toHaveProperty('license_plate');
    }
    const history = await call<Array<Record<string, unknown>>>(
      sim,
      `/events/history?ids=${emitted.map((e) => e.id).join(',')}`,
    );
    expect(new Map(history.body.map((row) => [row.id, row]))).toEqual(
      new Map(received.map((row) => [row.id, row])),
    );
  });

  it('extended single id and comma list select tasks', async () => {
    const one = await listen(realtimeUrl(sim, '2'));
    const list = await listen(realtimeUrl(sim, '1,3'));
    await sim.control.emit(9, { taskIds: [1, 2, 3] });
    await one.waitFor(3);
    await list.waitFor(6);
    await settle(100);
    expect(one.json().map((event) => event.task_id)).toEqual([2, 2, 2]);
    expect(list.json().map((event) => event.task_id)).toEqual([1, 3, 1, 3, 1, 3]);
  });

  it('basic path receives its one task in the basic form', async () => {
    const basic = await listen(realtimeUrl(sim, 'basic:2'));
    const emitted = await sim.control.emit(4, { taskIds: [1, 2] });
    const received = (await basic.waitFor(2)).map((text) => JSON.parse(text) as Record<string, unknown>);
    await settle(100);
    expect(basic.messages).toHaveLength(2);
    for (const event of received) {
      expect(event.task_id).toBe(2);
      for (const field of BASIC_FORBIDDEN) expect(event).not.toHaveProperty(field);
    }
    const expected = emitted.filter((event) => event.task_id === 2);
    expect(received.map((event) => event.timestamp)).toEqual(expected.map((event) => event.timestamp));
    expect(received.map((event) => event.detected_objects)).toEqual(
      expected.map((event) => event.detected_objects),
    );
  });

  it('one emit reaches many subscribers, each in its own form', async () => {
    const listeners = await Promise.all([
      listen(realtimeUrl(sim, '0')),
      listen(realtimeUrl(sim, '0')),
      listen(realtimeUrl(sim, 'basic:1')),
    ]);
    await sim.control.emit(50, { taskIds: [1] });
    for (const listener of listeners) await listener.waitFor(50);
    expect(listeners[0]?.messages).toEqual(listeners[1]?.messages);
    expect(listeners[2]?.json()[0]).not.toHaveProperty('id');
  });

  it('the rate generator emits live events from active tasks only', async () => {
    for (const task of sim.world.tasks) {
      if (task.id !== 4) sim.control.setTaskStatus(task.id, 'non-operating, paused');
    }
    sim.control.setTaskStatus(4, 'operating, normal');
    const all = await listen(realtimeUrl(sim, '0'));
    sim.control.setRate(40);
    await all.waitFor(4, 5000);
    sim.control.setRate(0);
    expect(new Set(all.json().map((event) => event.task_id))).toEqual(new Set([4]));
    expect(sim.control.stats().rate).toBe(0);
  });

  it('answers pings with pongs (autoPong is off so halfOpen can withhold them)', async () => {
    const listener = await listen(realtimeUrl(sim, '0'));
    listener.ws.ping(Buffer.from('hello'));
    const [data] = (await once(listener.ws, 'pong')) as [Buffer];
    expect(data.toString()).toBe('hello');
  });

  it('refuses upgrades with real HTTP statuses: 401 token, 403 service id, 404 path', async () => {
    const refused = async (url: string) => {
      const answer = await upgradeAnswer(url);
      return {
        status: answer.status,
        detail: (JSON.parse(answer.body || '{}') as { detail?: string }).detail,
      };
    };
    expect(await refused(realtimeUrl(sim, '0', null))).toEqual({
      status: 401,
      detail: 'Could not validate credentials',
    });
    expect(await refused(realtimeUrl(sim, '0', 'forged'))).toEqual({
      status: 401,
      detail: 'Could not validate credentials',
    });
    expect((await refused(realtimeUrl(sim, 'basic:1', null))).status).toBe(401);
    expect(await refused(realtimeUrl(sim, '0', sim.token, 'other-service'))).toEqual({
      status: 403,
      detail: 'Unknown service id',
    });
    for (const selection of ['1,x', '-1', ''])
      expect((await refused(realtimeUrl(sim, selection))).status).toBe(404);
    expect((await refused(realtimeUrl(sim, 'basic:abc'))).status).toBe(404);
    expect((await refused(`${sim.wsUrl}/events/elsewhere?token=${sim.token}`)).status).toBe(404);
    expect((await refused(`${sim.wsUrl}/events/realtime/a/b/c?token=${sim.token}`)).status).toBe(404);
    expect(sim.control.stats().connectionsRefused).toBeGreaterThanOrEqual(9);
  });

  it('sends server pings when pingIntervalMs is set', async () => {
    const pinging = await startSimulator({ historySize: 1, pingIntervalMs: 50 });
    try {
      const ws = new WebSocket(realtimeUrl(pinging, '0'));
      await once(ws, 'ping');
      ws.terminate();
    } finally {
      await pinging.stop();
    }
  });
});

describe('forms decide which realtime paths exist', () => {
  it('basic serves only /events/realtime/:task_id, extended only /:service_id/:task_ids', async () => {
    const basic = await startSimulator({ form: 'basic', historySize: 1 });
    const extended = await startSimulator({ form: 'extended', historySize: 1 });
    try {
      expect((await upgradeAnswer(realtimeUrl(basic, 'basic:1'))).status).toBe(101);
      expect((await upgradeAnswer(realtimeUrl(basic, '0'))).status).toBe(404);
      expect((await upgradeAnswer(realtimeUrl(extended, '0'))).status).toBe(101);
      expect((await upgradeAnswer(realtimeUrl(extended, 'basic:1'))).status).toBe(404);
      const listener = await Listener.open(realtimeUrl(basic, 'basic:1'));
      await basic.control.emit(1, { taskIds: [1] });
      expect((await listener.waitFor(1)).length).toBe(1);
      expect(listener.json()[0]).not.toHaveProperty('id');
      listener.close();
    } finally {
      await Promise.all([basic.stop(), extended.stop()]);
    }
  });
});
