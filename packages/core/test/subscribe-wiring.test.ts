import { describe, expect, it } from 'vitest';
import type { ObservationEvent, SubscriptionState } from '../src/index.js';
import { client, optionsFor, simulator } from './helpers.js';

// The subscription itself is tested in src/realtime; this checks the client's wiring: context
// built from the client's options, token and form knowledge, and close() reaching every socket.

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('client.events.subscribe', () => {
  it.each([
    ['extended', true],
    ['basic', false],
  ] as const)(
    'delivers live events in the %s form and client.close() closes the subscription',
    async (form, withServiceId) => {
      const sim = await simulator({ form, historySize: 0 });
      const c = client(
        optionsFor(
          sim,
          withServiceId ? { auth: sim.credentials } : { serviceId: undefined, auth: sim.credentials },
        ),
      );
      const taskId = sim.world.tasks[0]?.id ?? 1;
      const received: ObservationEvent[] = [];
      const states: SubscriptionState[] = [];
      const subscription = c.events.subscribe(
        taskId,
        { onEvent: (event) => void received.push(event), onStateChange: (state) => void states.push(state) },
        { heartbeatMs: 5_000 },
      );
      await waitFor(() => subscription.state === 'open');
      await sim.control.emit(5, { taskIds: [taskId] });
      await waitFor(() => received.length === 5);
      expect(received.every((e) => e.taskId === taskId && e.form === form)).toBe(true);
      expect(subscription.stats.delivered).toBe(5);
      expect(sim.control.stats().logins).toBe(1);

      await c.close();
      expect(subscription.state).toBe('closed');
      await waitFor(() => sim.control.stats().openSockets === 0);
      expect(() => c.events.subscribe(taskId, { onEvent: () => undefined })).toThrow(/closed/);
    },
  );
});
