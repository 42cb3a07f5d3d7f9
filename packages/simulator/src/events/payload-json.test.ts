import { describe, expect, it } from 'vitest';
import type { SimulatedEvent } from '../types.js';
import { WorldState } from '../world/world-state.js';
import { buildEvent } from './event-factory.js';
import { basicPayload, extendedPayload } from './payload-forms.js';
import { basicJson, extendedJson, num } from './payload-json.js';

describe('hand-written payload JSON', () => {
  it.each([
    0,
    -0,
    1,
    -7,
    0.5,
    0.000001,
    1e-7,
    -12.5,
    0.7693,
    52.520001,
    -33.868812,
    123456.789012,
    0.1 + 0.2,
    1 / 3,
    1e21,
  ])('prints %d exactly like JSON.stringify', (value) => {
    expect(num(value)).toBe(JSON.stringify(value));
  });

  it('is byte-for-byte JSON.stringify of both forms for thousands of generated events', () => {
    for (const seed of [1, 2, 99]) {
      const world = new WorldState(seed);
      const context = {
        seed,
        mediaBase: 'http://127.0.0.1:1/apiserver',
        location: (id: number) => world.location(id),
      };
      const tasks = world.tasks();
      for (let id = 1; id <= 3000; id++) {
        const event = buildEvent(
          context,
          id,
          tasks[id % tasks.length] as (typeof tasks)[number],
          1_700_000_000 + id,
        );
        expect(extendedJson(event)).toBe(JSON.stringify(extendedPayload(event)));
        expect(basicJson(event)).toBe(JSON.stringify(basicPayload(event)));
      }
    }
  });

  it('escapes strings that need it', () => {
    const world = new WorldState(1);
    const task = world.tasks()[0] as NonNullable<ReturnType<WorldState['task']>>;
    const event: SimulatedEvent = {
      ...buildEvent(
        { seed: 1, mediaBase: 'http://x/"quoted"', location: (id) => world.location(id) },
        1,
        task,
        0,
      ),
      note: 'line\nbreak "quoted" \\ back – ü',
      license_plate: 'AB "1"',
    };
    expect(extendedJson(event)).toBe(JSON.stringify(extendedPayload(event)));
    expect(basicJson(event)).toBe(JSON.stringify(basicPayload(event)));
  });
});
