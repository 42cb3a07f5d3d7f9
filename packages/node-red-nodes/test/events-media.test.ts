import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, eventsNode, serverNode, sink, tab } from './harness/flows.js';
import { NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;
const idOf = (msg: Msg) => (msg.payload as { id: number }).id;

/**
 * A service that writes each snapshot after it publishes the event (404 until then), as real
 * NVRs do: the events node must send the event with its images once they appear, and without
 * them, flagged, once the wait runs out.
 */
describe(`events node: snapshots written after the event (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({
      seed: 41,
      mediaDelay: { snapshotMs: { min: 0, max: 0 }, clipMs: { min: 0, max: 0 }, busyMs: 0 },
    });
    red = await NodeRedHarness.start();
    await red.deploy([
      tab(),
      serverNode(sim),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
      eventsNode('events', ['out'], {
        taskMode: 'ids',
        taskIds: '1,2',
        attachSnapshot: true,
        attachAnnotated: true,
        mediaWait: 3,
      }),
    ]);
    await waitUntil(() => sim.control.stats().openSockets === 1, 10_000, 'connected');
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });

  it('late snapshots: every event arrives with both images, in order per task; one that never appears goes out once, flagged, reported once', async () => {
    red.clear();
    const late = await sim.control.emit(8, { taskIds: [1, 2], latenessMs: 0, snapshotDelayMs: 1_500 });
    const [never] = await sim.control.emit(1, { taskIds: [1], latenessMs: 0, snapshotDelayMs: 'never' });
    // Sentinels after it, one per task, with their snapshots at once: they prove the stream went
    // on past the missing image and that nothing else (no second copy) came.
    const sentinels = await sim.control.emit(2, { taskIds: [1, 2], latenessMs: 0, snapshotDelayMs: 0 });
    const all = [...late, never, ...sentinels].map((event) => event?.id as number);
    const got = await red.waitFor(
      'out',
      (list) => sentinels.every((s) => list.some((m) => idOf(m) === s.id)),
      20_000,
    );

    expect(got.map(idOf).sort((a, b) => a - b)).toEqual([...all].sort((a, b) => a - b));
    for (const task of [1, 2]) {
      const sent = [...late, never, ...sentinels].filter((e) => e?.task_id === task).map((e) => e?.id);
      expect(got.filter((m) => m.taskId === task).map(idOf)).toEqual(sent);
    }
    for (const msg of got.filter((m) => idOf(m) !== never?.id)) {
      expect(Buffer.isBuffer(msg.snapshot)).toBe(true);
      expect(Buffer.isBuffer(msg.annotated)).toBe(true);
      expect(msg.missingImages).toBeUndefined();
    }
    const flagged = got.find((m) => idOf(m) === never?.id) as Msg;
    expect(flagged.missingImages).toEqual(['snapshot', 'annotated']);
    expect(flagged.snapshot).toBeUndefined();
    const errors = red.messages('errors');
    expect(errors).toHaveLength(1);
    expect((errors[0]?.payload as { code?: string } | undefined)?.code).toBe('MEDIA_MISSING');
    const message = String((errors[0]?.error as { message?: string } | undefined)?.message);
    expect(message).toContain(`/media/snapshots/${never?.id}.png`);
    expect(message).toMatch(/not there after waiting [23]\.\d s/);
    expect(message).not.toContain(sim.token);
  });
});
