import { describe, expect, it } from 'vitest';
import type { DetectedObject, ObservationEvent } from '../model/observation-event.js';
import { makeEvent } from './__tests__/make-event.js';
import { Cooldown, cooldownKey, maxCooldownKeys, readCooldown } from './cooldown.js';
import { readPosition, storedPosition } from './position.js';

const minute = 60_000;
let nextId = 1;

/** An event of a camera at `second` of event time (record ids count up, as the service's do). */
function at(second: number, cameraId = 11): ObservationEvent {
  const event = makeEvent({ id: nextId++, second, taskId: 100 + cameraId });
  event.cameraId = cameraId;
  return event;
}

function object(name: string): DetectedObject {
  return { objectId: name, name, box: { cx: 0.5, cy: 0.5, w: 0.1, h: 0.1 }, confidence: 0.9, warning: false };
}

describe('cooldown', () => {
  it('3 cameras, an event every 4 s each for 10 minutes: one per camera per minute, every held event counted', () => {
    const cooldown = new Cooldown({ ms: minute, per: 'camera' }, 0);
    const passed = new Map<number, Array<{ second: number; heldBack: number }>>();
    let held = 0;
    for (let second = 0; second < 600; second += 4) {
      // The cameras' events interleave, one second apart.
      for (const [offset, camera] of [11, 12, 13].entries()) {
        const event = at(second + offset, camera);
        const verdict = cooldown.judge(event, undefined);
        if (verdict.held) {
          held++;
          continue;
        }
        expect(verdict.cooldown.key).toBe(`camera:${camera}`);
        passed.set(camera, [
          ...(passed.get(camera) ?? []),
          { second: second + offset, heldBack: verdict.cooldown.heldBack },
        ]);
      }
    }
    for (const [offset, camera] of [11, 12, 13].entries()) {
      const passes = passed.get(camera) ?? [];
      // At 0, 60, …, 540 (plus the camera's offset): 15 events of each minute, 14 held between.
      expect(passes.map((pass) => pass.second)).toEqual(
        Array.from({ length: 10 }, (_, index) => index * 60 + offset),
      );
      expect(passes.map((pass) => pass.heldBack)).toEqual([0, 14, 14, 14, 14, 14, 14, 14, 14, 14]);
    }
    expect(held).toBe(3 * (150 - 10));
  });

  it('a pass given up frees its slot: the slot returns to the pass before it, and its held count is given back', () => {
    const cooldown = new Cooldown({ ms: minute, per: 'camera' }, 0);
    const first = at(0);
    expect(cooldown.judge(first, undefined)).toEqual({
      held: false,
      cooldown: { key: 'camera:11', heldBack: 0 },
    });
    for (const second of [10, 20, 30, 40, 50]) expect(cooldown.judge(at(second), undefined).held).toBe(true);
    const alert = at(60);
    expect(cooldown.judge(alert, undefined)).toEqual({
      held: false,
      cooldown: { key: 'camera:11', heldBack: 5 },
    });
    // Held while the alert was being tried: it stays held.
    expect(cooldown.judge(at(70), undefined).held).toBe(true);
    expect(cooldown.giveBack(alert, 'camera:11')).toBe(true);
    // 61 s after the first pass: free again, and it tells of all six held since the first pass.
    expect(cooldown.judge(at(61), undefined)).toEqual({
      held: false,
      cooldown: { key: 'camera:11', heldBack: 6 },
    });
    // The first pass holds its slot still: an event out of order near it is held.
    expect(cooldown.judge(at(35), undefined).held).toBe(true);
    // Giving back an event that holds no slot changes nothing.
    expect(cooldown.giveBack(at(300), 'camera:11')).toBe(false);
  });

  it('judges on event time, either side, whatever the order the events come in', () => {
    const cooldown = new Cooldown({ ms: minute, per: 'camera' }, 0);
    const verdicts = [100, 50, 30, 170, 140, 229, 230].map((second) => [
      second,
      cooldown.judge(at(second), undefined).held ? 'held' : 'passed',
    ]);
    expect(verdicts).toEqual([
      [100, 'passed'],
      // 50 s before the pass at 100.
      [50, 'held'],
      // 70 s before it; the held one at 50 holds no slot.
      [30, 'passed'],
      [170, 'passed'],
      // Within a minute of 100 and of 170.
      [140, 'held'],
      [229, 'held'],
      [230, 'passed'],
    ]);
  });

  it('the same event handed over again (a rerun) is not held by its own slot, and tells the same held count', () => {
    const cooldown = new Cooldown({ ms: minute, per: 'camera' }, 0);
    cooldown.judge(at(0), undefined);
    cooldown.judge(at(5), undefined);
    const alert = at(61);
    expect(cooldown.judge(alert, undefined)).toEqual({
      held: false,
      cooldown: { key: 'camera:11', heldBack: 1 },
    });
    cooldown.judge(at(62), undefined);
    expect(cooldown.judge(alert, undefined)).toEqual({
      held: false,
      cooldown: { key: 'camera:11', heldBack: 1 },
    });
    expect(cooldown.stored()['camera:11']?.held).toBe(1);
  });

  it('keys: camera (or the task without one), task, object (matched, else first detected, else the event name)', () => {
    const event = at(0, 12);
    expect(cooldownKey(event, 'camera', undefined)).toBe('camera:12');
    expect(cooldownKey(event, 'task', undefined)).toBe('task:112');
    const basic = makeEvent({ second: 0, taskId: 7 });
    expect(cooldownKey(basic, 'camera', undefined)).toBe('task:7');
    expect(cooldownKey(basic, 'object', undefined)).toBe('event:person_detected');
    basic.objects = [object('car'), object('person')];
    expect(cooldownKey(basic, 'object', undefined)).toBe('object:car');
    expect(cooldownKey(basic, 'object', [object('person')])).toBe('object:person');
    // Keys of different kinds never share a slot.
    const cooldown = new Cooldown({ ms: minute, per: 'object' }, 0);
    expect(cooldown.judge(basic, [object('person')]).held).toBe(false);
    expect(cooldown.judge(makeEvent({ second: 1, taskId: 7 }), undefined).held).toBe(false);
  });

  it('is kept in the stored position, read back through JSON, and a restart judges on with it', () => {
    const cooldown = new Cooldown({ ms: minute, per: 'camera' }, 0);
    cooldown.judge(at(0, 11), undefined);
    cooldown.judge(at(10, 11), undefined);
    cooldown.judge(at(20, 12), undefined);
    const saved = JSON.parse(
      JSON.stringify(storedPosition('scope', 0, [], false, undefined, cooldown.stored())),
    );
    const reading = readPosition(saved, 'scope');
    if (reading.kind !== 'restored') throw new Error(`read as ${reading.kind}`);
    expect(reading.cooldownProblem).toBeUndefined();
    const restarted = new Cooldown({ ms: minute, per: 'camera' }, 0);
    restarted.restore(reading.cooldown ?? {});
    expect(restarted.judge(at(50, 11), undefined).held).toBe(true);
    expect(restarted.judge(at(75, 12), undefined).held).toBe(true);
    expect(restarted.judge(at(61, 11), undefined)).toEqual({
      held: false,
      cooldown: { key: 'camera:11', heldBack: 2 },
    });
    // Without the restore the same event would pass: the check above is the stored state's doing.
    expect(new Cooldown({ ms: minute, per: 'camera' }, 0).judge(at(50, 11), undefined).held).toBe(false);
  });

  it('a corrupt stored cooldown resets the cooldown only; a position without one still loads', () => {
    const base = JSON.parse(
      JSON.stringify(
        storedPosition('scope', 0, [['extended', { fromMs: 0, newestMs: undefined, keys: [5] }]]),
      ),
    );
    const plain = readPosition(base, 'scope');
    expect(plain.kind).toBe('restored');
    if (plain.kind === 'restored') expect(plain.cooldown).toBeUndefined();
    for (const cooldown of [
      'soon',
      { 'camera:1': { passes: [{ at: 'yesterday', id: '1', heldBack: 0 }], held: 0 } },
      { 'camera:1': { passes: [], held: -1 } },
      { 'camera:1': { passes: [{ at: '2024-05-01T08:00:00.000Z', id: 1, heldBack: 0 }], held: 0 } },
    ]) {
      const reading = readPosition({ ...base, cooldown }, 'scope');
      if (reading.kind !== 'restored') throw new Error(`read as ${reading.kind}`);
      expect(reading.cooldown).toBeUndefined();
      expect(reading.cooldownProblem).toBeTypeOf('string');
      expect([...(reading.streams.get('extended')?.keys ?? [])]).toEqual([5]);
    }
    expect(
      readCooldown({
        'camera:1': { passes: [{ at: '2024-05-01T08:00:00.000Z', id: '1', heldBack: 2 }], held: 3 },
      }),
    ).toEqual({
      'camera:1': { passes: [{ at: '2024-05-01T08:00:00.000Z', id: '1', heldBack: 2 }], held: 3 },
    });
  });

  it('bounded: keys idle past ms plus the read-back are forgotten unless they count held events; at most 10,000', () => {
    const cooldown = new Cooldown({ ms: minute, per: 'camera' }, 30_000);
    cooldown.judge(at(0, 1), undefined);
    cooldown.judge(at(0, 2), undefined);
    cooldown.judge(at(10, 2), undefined);
    cooldown.judge(at(89, 3), undefined);
    expect(Object.keys(cooldown.stored())).toEqual(['camera:1', 'camera:2', 'camera:3']);
    // 91 s: the pass at 0 is more than a minute and 30 s back; camera 2 still counts a held event.
    cooldown.judge(at(91, 3), undefined);
    expect(Object.keys(cooldown.stored())).toEqual(['camera:2', 'camera:3']);
    const many = new Cooldown({ ms: minute, per: 'camera' }, long);
    for (let camera = 0; camera < maxCooldownKeys + 5; camera++) many.judge(at(0, camera), undefined);
    const kept = Object.keys(many.stored());
    expect(kept).toHaveLength(maxCooldownKeys);
    // The keys idle longest went first.
    expect(kept[0]).toBe('camera:5');
  });
});

const long = 86_400_000;
