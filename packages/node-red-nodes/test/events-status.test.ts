import { describe, expect, it } from 'vitest';
import { eventsStatus } from '../src/lib/events-status.js';

// The runtime's translation stands in as "[key count]" so the test sees what was translated where.
const t = (key: string, substitutions: Record<string, string | number> = {}) =>
  `[${key.replace('observation-events.status.', '')}${Object.values(substitutions)
    .map((v) => ` ${v}`)
    .join('')}]`;

describe('eventsStatus with events waiting', () => {
  it('a text the editor would translate is translated by the runtime before the count is appended', () => {
    const status = eventsStatus({ state: 'backfilling', count: 3, waiting: 2 }, t);
    expect(status.text).toBe('[catchingUp] · [waiting 2]');
  });
  it('without events waiting, the key goes to the editor as it is', () => {
    const status = eventsStatus({ state: 'backfilling', count: 3 }, t);
    expect(status.text).toBe('observation-events.status.catchingUp');
  });
  it('a counted text is appended to as it is', () => {
    const status = eventsStatus({ state: 'open', count: 3, waiting: 1 }, t);
    expect(status.text).toBe('[connected 3] · [waiting 1]');
  });
});
