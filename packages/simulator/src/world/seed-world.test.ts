import { describe, expect, it } from 'vitest';
import { TASK_STATUSES } from './catalog.js';
import { seedWorld } from './seed-world.js';
import { isActiveStatus, toListItem, WorldState } from './world-state.js';

describe('seeded world', () => {
  it('is deterministic per seed and differs between seeds', () => {
    expect(seedWorld(1)).toEqual(seedWorld(1));
    expect(seedWorld(1).tasks).not.toEqual(seedWorld(2).tasks);
  });

  it('has several organizations, locations in distinct zones, every status and scheduler kind', () => {
    const world = seedWorld(77);
    expect(world.organizations.length).toBeGreaterThanOrEqual(3);
    expect(new Set(world.locations.map((l) => l.timezone)).size).toBe(world.locations.length);
    expect(new Set(world.tasks.map((t) => t.status))).toEqual(new Set(TASK_STATUSES));
    expect(new Set(world.tasks.map((t) => t.scheduler.type))).toEqual(new Set(['24/7', 'daily', 'weekly']));
    expect(world.eventTypes.length).toBeGreaterThanOrEqual(8);
  });

  it('the list form drops thresholds and filters but keeps extra fields', () => {
    const world = seedWorld(1);
    const withExtras = world.tasks.find((task) => 'camera' in task);
    if (!withExtras) throw new Error('some seeded tasks carry extra fields');
    const item = toListItem(withExtras) as unknown as Record<string, unknown>;
    expect(item.camera).toEqual((withExtras as unknown as Record<string, unknown>).camera);
    expect(item).not.toHaveProperty('confidence_threshold');
    expect(item.scheduler).toBe(withExtras.scheduler.type);
  });

  it('operating and video tasks are active, the others and unknown statuses are not', () => {
    expect(TASK_STATUSES.filter(isActiveStatus)).toEqual([
      'operating, normal',
      'operating, slow',
      'operating, disconnected',
      'video',
    ]);
    expect(isActiveStatus('something-new')).toBe(false);
  });

  it('never reuses a task id, so past events keep pointing at the right task', () => {
    const state = new WorldState(1);
    const added = state.addTask();
    state.removeTask(added.id);
    expect(state.addTask().id).toBe(added.id + 1);
    expect(() => state.addTask({ id: added.id })).toThrow(/already in use/);
    expect(state.knownTask(added.id)?.id).toBe(added.id);
  });
});
