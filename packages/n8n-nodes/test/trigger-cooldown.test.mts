import { type Simulator, startSimulator } from '@observation-service/simulator';
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  type ActivationOptions,
  type ActiveTrigger,
  activateTrigger,
  createEngine,
  type Engine,
  makeNode,
  triggerType,
} from './harness/n8n-engine.mts';
import { eventually, tokenCredential } from './harness/simulator-credentials.mts';

/**
 * The trigger's Cooldown in n8n's engine (issue 52): three cameras, an event of each every 6 s of
 * event time, one execution per camera a minute, and n8n restarted (activation `init`, the static
 * data n8n saved at the trigger's last emit) in the middle of a minute.
 *
 * Core judges the cooldown on the events' own time, so the test does not wait minutes: the
 * simulator publishes each event with a chosen lateness, which puts its timestamp on a timeline
 * that starts five minutes ago, 6 s apart per camera, and emits them one after another at full
 * speed. A cooldown on arrival would let one execution per camera pass in this whole test.
 *
 * These timestamps lie further back than the allowed lateness (2 minutes): no catch-up reads
 * them from history, so every event is published while a trigger is connected, and the restart
 * comes right after an emit, as n8n saved it (an event held after the last emit would be read
 * again by a restart's catch-up only when it is recent, which this timeline is not).
 */
const COOLDOWN_MS = 60_000;
/** Each camera's events lie this far apart (event time): ten a minute. */
const STEP_S = 6;
/** Camera A from second 0, B from 20, C from 40: their minutes overlap, so a restart is inside some. */
const OFFSETS_S = [0, 20, 40] as const;
/** Each camera's last event, after its first: its fourth alert. */
const SPAN_S = 180;
/** The restart follows the emit of camera B's second alert (second 80 of the timeline). */
const RESTART_AFTER_S = 80;

let sim: Simulator;
let engine: Engine;
const active: ActiveTrigger[] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 52, historySize: 0 });
  engine = await createEngine(tokenCredential(sim));
});
afterEach(async () => {
  for (const trigger of active.splice(0)) await trigger.close();
  await eventually(() => sim.control.stats().openSockets === 0);
});
afterAll(async () => {
  await sim.stop();
});

async function activate(node: INode, staticData: IDataObject, options: ActivationOptions) {
  const trigger = await activateTrigger(
    engine,
    node,
    JSON.parse(JSON.stringify(staticData)) as IDataObject,
    'trigger',
    options,
  );
  active.push(trigger);
  return trigger;
}

interface Planned {
  taskId: number;
  cameraId: number;
  /** Seconds from the timeline's start. */
  at: number;
}

interface Sent extends Planned {
  id: number;
  occurredAt: string;
}

interface Camera {
  cameraId: number;
  taskId: number;
}

/** A task on each of four cameras. */
function fourCameras(): [Camera, Camera, Camera, Camera] {
  const byCamera = new Map<number, number>();
  for (const task of sim.world.tasks)
    if (!byCamera.has(task.camera_id)) byCamera.set(task.camera_id, task.id);
  const cameras = [...byCamera.entries()].slice(0, 4).map(([cameraId, taskId]) => ({ cameraId, taskId }));
  expect(cameras).toHaveLength(4);
  return cameras as [Camera, Camera, Camera, Camera];
}

/** Items of the executions n8n ran, in order. */
const itemsOf = (trigger: ActiveTrigger): INodeExecutionData[] =>
  trigger.ran.flatMap((batch) => batch[0] ?? []);

describe('Cooldown (1 minute per camera) through a restart of n8n', () => {
  test('one execution per camera a minute of event time, each counting the events held since the camera’s previous one; after the restart the minute still holds', async () => {
    // Three tasks on three cameras, and a fourth camera for the emit before the restart and the sentinel.
    const [a, b, c, other] = fourCameras();
    const plan: Planned[] = [a, b, c]
      .flatMap((camera, n) => {
        const events: Planned[] = [];
        for (let at = OFFSETS_S[n] as number; at <= (OFFSETS_S[n] as number) + SPAN_S; at += STEP_S)
          events.push({ ...camera, at });
        return events;
      })
      .sort((x, y) => x.at - y.at);
    // Five minutes ago, on a whole second: the timeline's second `at` is its events' second.
    const startMs = Math.floor(Date.now() / 1000) * 1000 - 300_000;
    const sent: Sent[] = [];
    const publish = async (planned: Planned) => {
      // Half a second into its second, so the few ms until the simulator reads its clock keep it there.
      const latenessMs = Math.round(Date.now() - (startMs + planned.at * 1000 + 500));
      const [event] = await sim.control.emit(1, { taskIds: [planned.taskId], latenessMs });
      if (!event) throw new Error('the simulator emitted nothing');
      expect(event.camera_id).toBe(planned.cameraId);
      sent.push({
        ...planned,
        id: event.id,
        occurredAt: new Date(startMs + planned.at * 1000).toISOString(),
      });
      return event.id;
    };

    const node = makeNode(
      triggerType,
      { tasks: 'all', options: { cooldownMinutes: 1, cooldownPer: 'camera' } },
      'Observation Trigger',
    );
    const deduplication = new Set<string>();
    const first = await activate(node, {}, { deduplication, savedAtEmit: true });
    await eventually(() => sim.control.stats().openSockets === 1, 10_000);
    // The start second is read from history at a fresh start: what follows it is live.
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    const beforeRestart = plan.filter((event) => event.at <= RESTART_AFTER_S);
    const afterRestart = plan.filter((event) => event.at > RESTART_AFTER_S);
    expect(beforeRestart.at(-1)).toMatchObject({ taskId: b.taskId, at: RESTART_AFTER_S });
    let lastAlert = 0;
    for (const event of beforeRestart) lastAlert = await publish(event);
    await eventually(() => itemsOf(first).some((item) => item.json.id === lastAlert), 20_000);
    const alertedAt = Date.now();
    // Core writes its cooldown into the position at most once a second (positionSaveMs), and
    // before each hand-over writes the last one again with the new unfinished entry: n8n, which
    // saves static data only at an emit, holds the cooldown of every event up to B's alert at 80
    // once core saved after it and a later emit followed. (A restart nearer a burst holds an
    // older one; the catch-up then judges the recent events again, which these old ones are not.)
    const positionOf = (staticData: IDataObject) =>
      (staticData['node:Observation Trigger'] as IDataObject | undefined)?.position as
        | { savedAt: string; cooldown?: Record<string, { passes: Array<{ at: string }>; held: number }> }
        | undefined;
    const secondOf = (second: number) => new Date(startMs + second * 1000).toISOString();
    await eventually(() => Date.parse(positionOf(first.staticData)?.savedAt ?? '') > alertedAt, 10_000);
    // A fourth camera's first event, a second later: its alert is the last emit before n8n stops.
    const lastBefore = await publish({ ...other, at: RESTART_AFTER_S + 1 });
    await eventually(() => itemsOf(first).some((item) => item.json.id === lastBefore), 20_000);

    // n8n restarts: what it saved at that emit is all the next start has.
    const saved = first.savedAtLastEmit;
    await first.close();
    active.splice(active.indexOf(first), 1);
    await eventually(() => sim.control.stats().openSockets === 0, 10_000);
    const second = await activate(node, saved, { activation: 'init', deduplication });
    await eventually(() => sim.control.stats().openSockets === 1, 10_000);
    for (const event of afterRestart) await publish(event);
    // The fourth camera again, more than a minute later: it passes, after every event above.
    const sentinel = await publish({ ...other, at: SPAN_S + (OFFSETS_S[2] as number) + 10 });
    await eventually(() => itemsOf(second).some((item) => item.json.id === sentinel), 30_000);

    const firstItems = itemsOf(first);
    const secondItems = itemsOf(second);
    const alerts = [...firstItems, ...secondItems].filter(
      (item) => item.json.id !== sentinel && item.json.id !== lastBefore,
    );
    // Nothing ran twice (the fourth camera's event is older than any catch-up after the restart reads).
    expect(new Set([...firstItems, ...secondItems].map((item) => item.json.id)).size).toBe(
      firstItems.length + secondItems.length,
    );

    const passing = (camera: Camera) => alerts.filter((item) => item.json.cameraId === camera.cameraId);
    let heldInAll = 0;
    for (const [n, camera] of [a, b, c].entries()) {
      const offset = OFFSETS_S[n] as number;
      const mine = sent.filter((event) => event.cameraId === camera.cameraId);
      const passed = passing(camera);
      // One a minute of event time, exactly on the minute (an event 60 s after the last alert is
      // no longer within it): four alerts in 3 minutes, not one more.
      const expectedAt = [0, 1, 2, 3].map((minute) => offset + (minute * COOLDOWN_MS) / 1000);
      expect(
        passed.map((item) => item.json.occurredAt),
        `camera ${camera.cameraId}`,
      ).toEqual(expectedAt.map(secondOf));
      expect(passed.map((item) => item.json.id)).toEqual(
        expectedAt.map((second) => mine.find((event) => event.at === second)?.id),
      );
      expect(passed.map((item) => (item.json.cooldown as IDataObject).key)).toEqual(
        Array(4).fill(`camera:${camera.cameraId}`),
      );
      // Each alert counts the events of its camera sent since its previous alert: nine (every 6 s
      // in between), those before the restart and those after it alike.
      const ids = passed.map((item) => item.json.id as number);
      const heldBetween = ids.map((id, k) =>
        k === 0 ? 0 : mine.filter((event) => event.id > (ids[k - 1] as number) && event.id < id).length,
      );
      expect(heldBetween).toEqual([0, 9, 9, 9]);
      expect(passed.map((item) => (item.json.cooldown as IDataObject).heldBack)).toEqual(heldBetween);
      heldInAll += mine.length - passed.length;
    }
    // Every other event was held back: 3 cameras × 31 events, 12 alerts.
    expect(alerts).toHaveLength(12);
    expect(heldInAll).toBe(sent.length - 2 - alerts.length);

    // The restart fell in the middle of minutes: A alerted at 60 and C at 40, each with events
    // held before the restart; after it, the first alert is C's at 100, not A's event at 84 nor
    // C's at 82, which an empty cooldown would have let through.
    expect(firstItems.map((item) => item.json.occurredAt)).toEqual([0, 20, 40, 60, 80, 81].map(secondOf));
    expect(secondItems[0]?.json).toMatchObject({
      cameraId: c.cameraId,
      occurredAt: secondOf(100),
      cooldown: { key: `camera:${c.cameraId}`, heldBack: 9 },
    });
    // What n8n held at the restart: each camera's last alert and the events held since, A 3 (66,
    // 72, 78), B none, C 6 (46 to 76).
    const held = positionOf(saved)?.cooldown;
    expect(
      [a, b, c].map((camera) => {
        const state = held?.[`camera:${camera.cameraId}`];
        return [state?.passes.at(-1)?.at, state?.held];
      }),
    ).toEqual([
      [secondOf(60), 3],
      [secondOf(80), 0],
      [secondOf(40), 6],
    ]);
  }, 120_000);
});

/**
 * The same rule on a restart as n8n meets it in real time: an event of each camera every 4 s,
 * n8n killed 24 s after the first alerts (what it saved at its last emit, those alerts', is all it
 * keeps: the events held since, and the cooldown core saved meanwhile, are not in it), two rounds
 * published while it is down, and its start 10 s later. The catch-up reads every event after the
 * saved position again, judged on its own time: held again, and counted on the next alert.
 */
describe('Cooldown across a kill of n8n, in real time', () => {
  /** A round (one event per camera) this often. */
  const ROUND_MS = 4_000;
  /** n8n is killed after this many rounds after the first, and started again two rounds later. */
  const ROUNDS_BEFORE_KILL = 6;
  /** Rounds after the first: past a minute, so each camera's second alert comes. */
  const ROUNDS = 17;

  test('one alert per camera a minute, each counting every event held since the previous one, those published while n8n was down included; the first alerts run once more on their next attempt, nothing else twice', async () => {
    const [a, b, c, other] = fourCameras();
    const cameras = [a, b, c];
    const node = makeNode(
      triggerType,
      { tasks: 'all', options: { cooldownMinutes: 1, cooldownPer: 'camera' } },
      'Observation Trigger',
    );
    const deduplication = new Set<string>();
    const first = await activate(node, {}, { deduplication, savedAtEmit: true });
    await eventually(() => sim.control.stats().openSockets === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    const sent: Array<{ id: number; cameraId: number; atMs: number }> = [];
    const round = async () => {
      for (const event of await sim.control.emit(cameras.length, {
        taskIds: cameras.map((camera) => camera.taskId),
        latenessMs: 0,
      }))
        sent.push({ id: event.id, cameraId: event.camera_id, atMs: Date.parse(event.timestamp) });
    };
    const startedMs = Date.now();
    const at = (n: number) => new Promise((wake) => setTimeout(wake, startedMs + n * ROUND_MS - Date.now()));
    let second: ActiveTrigger | undefined;
    let saved: IDataObject = {};
    for (let n = 0; n <= ROUNDS; n++) {
      await at(n);
      if (n === ROUNDS_BEFORE_KILL + 1) {
        // The kill: n8n keeps what it saved at its last emit.
        saved = first.savedAtLastEmit;
        await first.close();
        active.splice(active.indexOf(first), 1);
        await eventually(() => sim.control.stats().openSockets === 0, 10_000);
      }
      if (n === ROUNDS_BEFORE_KILL + 3) {
        second = await activate(node, saved, { activation: 'init', deduplication });
        await eventually(() => sim.control.stats().openSockets === 1, 10_000);
      }
      await round();
      if (n === 0) await eventually(() => first.ran.length === cameras.length, 10_000);
    }
    if (!second) throw new Error('n8n was not started again');
    const restarted = second;
    const [event] = await sim.control.emit(1, { taskIds: [other.taskId], latenessMs: 0 });
    const sentinel = event?.id as number;
    await eventually(() => itemsOf(restarted).some((item) => item.json.id === sentinel), 30_000);

    // What the rule lets through, on the events' own seconds: per camera, an event passes when
    // the camera's last alert is a minute old or more, and counts the events held since.
    const expected: Array<{ id: number; heldBack: number }> = [];
    for (const camera of cameras) {
      let lastMs = Number.NEGATIVE_INFINITY;
      let held = 0;
      for (const one of sent.filter((sentOne) => sentOne.cameraId === camera.cameraId)) {
        if (one.atMs - lastMs < COOLDOWN_MS) held++;
        else {
          expected.push({ id: one.id, heldBack: held });
          lastMs = one.atMs;
          held = 0;
        }
      }
    }
    expected.sort((x, y) => x.id - y.id);

    const firstItems = itemsOf(first);
    const secondItems = itemsOf(restarted).filter((item) => item.json.id !== sentinel);
    // The first life ran the first alerts only: every later event of it was held.
    expect(firstItems.map((item) => item.json.id)).toEqual(expected.slice(0, 3).map((one) => one.id));
    // n8n had not seen them finish at its last save (their emits): the restart runs them once more,
    // on attempt 2, with the same count, and they keep their cameras' slots.
    const rerun = secondItems.slice(0, 3);
    expect(rerun.map((item) => [item.json.id, item.json.cooldown])).toEqual(
      firstItems.map((item) => [item.json.id, item.json.cooldown]),
    );
    expect(restarted.keys.slice(0, 3).every((key) => key?.endsWith(':attempt2'))).toBe(true);
    // Then one alert per camera a minute after its first, counting every event held between: the
    // rounds before the kill (read again by the catch-up), while n8n was down, and after.
    const alerts = [...firstItems, ...secondItems.slice(3)].map((item) => ({
      id: item.json.id as number,
      heldBack: (item.json.cooldown as IDataObject).heldBack,
    }));
    expect(alerts).toEqual(expected);
    expect(alerts).toHaveLength(6);
    for (const alert of alerts.slice(3)) expect(alert.heldBack).toBeGreaterThanOrEqual(13);
  }, 150_000);
});
