import { describe, expect, it } from 'vitest';
import type { StateChangeInfo, SubscriptionState } from '../src/index.js';
import { client, optionsFor, simulator, waiter } from './helpers.js';

const until = waiter(20_000);

describe('a first connect that keeps failing', () => {
  it('tells the host why at every attempt, not only "connecting", then opens', async () => {
    const sim = await simulator({ historySize: 0 });
    sim.control.refuseConnections(1_500);
    const states: Array<{ state: SubscriptionState; info: StateChangeInfo }> = [];
    const sub = client(optionsFor(sim, { form: 'extended' })).events.subscribe(
      'all',
      { onEvent: () => undefined, onStateChange: (state, info) => void states.push({ state, info }) },
      { backoff: { baseMs: 50, maxMs: 200 } },
    );
    await until(() => sub.state === 'open', 'open');
    const failedAttempts = states.filter((entry) => entry.state === 'connecting' && entry.info.error);
    expect(failedAttempts.length).toBeGreaterThan(0);
    expect(failedAttempts[0]?.info.attempt).toBeGreaterThan(0);
    expect(states.at(-1)?.state).toBe('open');
    await sub.close();
  });
});
