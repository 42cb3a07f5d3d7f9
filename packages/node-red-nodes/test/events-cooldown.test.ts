import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNode, serverNode, TAB, tab } from './harness/flows.js';
import { type FlowNode, nodeRedPackage } from './harness/node-red.js';
import { NodeRedProcess } from './harness/node-red-process.js';
import { waitUntil } from './harness/wait.js';

/** The cooldown under test: one alert per camera a minute. */
const COOLDOWN_MS = 60_000;
/** A round (one event per camera) this often. */
const ROUND_MS = 4_000;
/** The restart comes this long after the first alerts, inside their minute. */
const RESTART_AT_MS = 24_000;
/** Rounds go on until this long after the first alerts: the second minute's alert of each camera has come. */
const RUN_MS = COOLDOWN_MS + 14_000;

interface Alert {
  id: number;
  cameraId: number;
  taskId: number;
  occurredAt: string;
  cooldown?: { key: string; heldBack: number };
}

const pause = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

/** What the flow reports: each alert's event and its msg.cooldown. */
async function startRecorder() {
  const alerts: Alert[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      alerts.push(JSON.parse(body) as Alert);
      response.end('ok');
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    alerts,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}

function post(id: string, url: string): FlowNode {
  return {
    id,
    type: 'http request',
    z: TAB,
    method: 'POST',
    ret: 'txt',
    paytoqs: 'ignore',
    url,
    wires: [[]],
  };
}

/**
 * The events node's Cooldown in Node-RED as users run it (red.js, the position in its file): three
 * cameras, an event of each every few seconds, one minute per camera; Node-RED is restarted inside
 * the first minute, and events published while it is down are caught up and judged on their time.
 */
describe(`events node cooldown across a restart (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedProcess;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 54, historySize: 5 });
    recorder = await startRecorder();
    red = NodeRedProcess.create();
    await red.start();
  });
  afterAll(async () => {
    await red?.dispose();
    await sim?.stop();
    await recorder?.close();
  });

  it('at most one alert per camera a minute, each carrying how many were held back; a restart keeps the cooldown', {
    timeout: RUN_MS + 90_000,
  }, async () => {
    // Three tasks of three cameras, and a fourth camera for the sentinel.
    const byCamera = new Map<number, number>();
    for (const task of sim.world.tasks)
      if (!byCamera.has(task.camera_id)) byCamera.set(task.camera_id, task.id);
    const [a, b, c, sentinelTask] = [...byCamera.values()];
    const tasks = [a, b, c] as number[];
    expect(sentinelTask).toBeDefined();
    await red.deploy([
      tab(),
      serverNode(sim),
      eventsNode('events', ['report'], {
        ackMode: 'done',
        cooldownMinutes: 1,
        cooldownPer: 'camera',
      }),
      {
        id: 'report',
        type: 'function',
        z: TAB,
        func: [
          'const { id, cameraId, taskId, occurredAt } = msg.payload;',
          'msg.payload = { id, cameraId, taskId, occurredAt, cooldown: msg.cooldown };',
          'return msg;',
        ].join('\n'),
        outputs: 1,
        wires: [['alert']],
      },
      post('alert', `${recorder.base}/alert`),
    ]);
    await waitUntil(() => sim.control.stats().openSockets === 1, 15_000, 'connected');

    const emitted: Array<{ id: number; taskId: number }> = [];
    const round = async () => {
      for (const event of await sim.control.emit(tasks.length, { taskIds: tasks }))
        emitted.push({ id: event.id as number, taskId: event.task_id as number });
    };
    await round();
    await waitUntil(() => recorder.alerts.length === tasks.length, 15_000, 'the first alerts');
    const started = Date.now();
    let restarted = false;
    while (Date.now() - started < RUN_MS) {
      await pause(ROUND_MS);
      if (!restarted && Date.now() - started >= RESTART_AT_MS) {
        restarted = true;
        // Stopped as Ctrl-C stops it; events of the next rounds are published while it is down.
        await red.stop();
        await round();
        await red.start();
        await waitUntil(() => sim.control.stats().openSockets === 1, 15_000, 'connected again');
      }
      await round();
    }
    expect(restarted).toBe(true);
    // Another camera's event, after all of them: once its alert is in, every event was judged.
    const [sentinel] = await sim.control.emit(1, { taskIds: [sentinelTask as number] });
    await waitUntil(
      () => recorder.alerts.some((alert) => alert.id === sentinel?.id),
      30_000,
      'the sentinel',
      () => recorder.alerts.length,
    );

    const alerts = recorder.alerts.filter((alert) => alert.id !== sentinel?.id);
    // Each event at most once, across the restart too.
    expect(new Set(alerts.map((alert) => alert.id)).size).toBe(alerts.length);
    const cameraOf = new Map(sim.world.tasks.map((task) => [task.id, task.camera_id]));
    let heldInAll = 0;
    for (const task of tasks) {
      const camera = cameraOf.get(task) as number;
      const passed = alerts.filter((alert) => alert.cameraId === camera);
      const times = passed.map((alert) => Date.parse(alert.occurredAt));
      // At most one a minute, and a new one as soon as the minute is over: two in this run.
      expect(passed, `camera ${camera}`).toHaveLength(2);
      expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(COOLDOWN_MS);
      expect(passed.map((alert) => alert.cooldown?.key)).toEqual([`camera:${camera}`, `camera:${camera}`]);
      // Held back: every event of the camera between its two alerts, those caught up after the
      // restart too; the second alert counts them.
      const ids = emitted.filter((event) => event.taskId === task).map((event) => event.id);
      const between = ids.filter((id) => id > (passed[0]?.id as number) && id < (passed[1]?.id as number));
      expect(between.length).toBeGreaterThan(RESTART_AT_MS / ROUND_MS);
      expect(passed.map((alert) => alert.cooldown?.heldBack)).toEqual([0, between.length]);
      heldInAll += ids.length - passed.length;
    }
    // Everything else was held back.
    expect(alerts).toHaveLength(tasks.length * 2);
    expect(heldInAll).toBe(emitted.length - alerts.length);
  });
});
