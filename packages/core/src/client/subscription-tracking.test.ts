import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../node/create-client.js';
import { waitFor } from '../realtime/__tests__/recorder.js';
import { trackedSubscriptions } from './build-client.js';

describe('the client lets go of subscriptions that end on their own', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it('failed subscriptions (refused token) leave the client: its set does not grow', async () => {
    sim = await startSimulator({ historySize: 0 });
    const client = createClient({
      url: sim.siteUrl,
      serviceId: sim.serviceId,
      form: 'extended',
      auth: { token: 'not-a-valid-token' },
    });
    const count = trackedSubscriptions.get(client);
    expect(count).toBeDefined();
    const states: string[] = [];
    const subs = Array.from({ length: 20 }, () =>
      client.events.subscribe('all', {
        onEvent() {},
        onStateChange: (state) => states.push(state),
        onError() {},
      }),
    );
    expect(count?.()).toBe(20);
    await waitFor(() => subs.every((sub) => sub.state === 'failed'), 'every subscription failed');
    await waitFor(() => count?.() === 0, 'failed subscriptions released');
    // The host's handler still saw every final state.
    expect(states.filter((state) => state === 'failed')).toHaveLength(20);
    await client.close();
    expect(subs.every((sub) => sub.state === 'failed')).toBe(true);
  });

  it('a subscription closed by its signal leaves too; open ones stay until client.close()', async () => {
    sim = await startSimulator({ historySize: 0 });
    const client = createClient({
      url: sim.siteUrl,
      serviceId: sim.serviceId,
      form: 'extended',
      auth: { token: sim.token },
    });
    const count = trackedSubscriptions.get(client);
    const controller = new AbortController();
    const aborted = client.events.subscribe('all', { onEvent() {} }, { signal: controller.signal });
    const open = client.events.subscribe([1], { onEvent() {} });
    await waitFor(() => aborted.state === 'open' && open.state === 'open', 'both open');
    expect(count?.()).toBe(2);
    controller.abort();
    await waitFor(() => count?.() === 1, 'aborted subscription released');
    expect(aborted.state).toBe('closed');
    await client.close();
    expect(open.state).toBe('closed');
    expect(count?.()).toBe(0);
    await waitFor(() => sim.control.stats().openSockets === 0, 'sockets closed');
  });
});

describe('closing a subscription of the client', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it('reports closed once and saves the position a last time with every stream in it', async () => {
    sim = await startSimulator({ historySize: 0 });
    const client = createClient({
      url: sim.siteUrl,
      serviceId: sim.serviceId,
      form: 'extended',
      auth: { token: sim.token },
    });
    const saved: { streams: Record<string, unknown> }[] = [];
    const states: string[] = [];
    const got: number[] = [];
    const sub = client.events.subscribe(
      'all',
      { onEvent: (event) => void got.push(event.id as number), onStateChange: (state) => states.push(state) },
      {
        position: {
          load: () => undefined,
          save: (position) => void saved.push(JSON.parse(JSON.stringify(position))),
        },
      },
    );
    await waitFor(() => sub.state === 'open', 'open');
    await sim.control.emit(2, { latenessMs: 0 });
    await waitFor(() => got.length === 2, 'two events');
    await sub.close();
    // The client let go of it (after its close, not beside it).
    await waitFor(() => client.openSubscriptions === 0, 'released');
    expect(states.filter((state) => state === 'closed')).toHaveLength(1);
    expect(Object.keys(saved.at(-1)?.streams ?? {})).toEqual(['extended']);
    await client.close();
  });
});
