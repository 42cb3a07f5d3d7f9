import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../node/create-client.js';
import { recorder, waitFor } from './__tests__/recorder.js';

describe('client.events.subscribe (the public way in)', () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  it('auto form, login with email/password: live, drop, catch-up, close with the client', async () => {
    sim = await startSimulator({ historySize: 0 });
    const client = createClient({
      url: sim.siteUrl,
      serviceId: sim.serviceId,
      form: 'auto',
      auth: sim.credentials,
    });
    const rec = recorder();
    const sub = client.events.subscribe('all', rec.handlers, {
      heartbeatMs: 1_000,
      backoff: { baseMs: 5, maxMs: 50 },
    });
    await waitFor(() => sub.state === 'open', 'open');
    const live = await sim.control.emit(5);
    sim.control.dropConnections();
    const missed = await sim.control.emit(5);
    await waitFor(() => rec.events.length === 10 && sub.state === 'open', 'all events');
    expect(rec.events.map((event) => event.id)).toEqual([...live, ...missed].map((event) => event.id));
    expect(rec.events[0]?.form).toBe('extended');
    expect(sub.stats.reconnects).toBe(1);
    expect(sim.control.stats().logins).toBe(1);
    await client.close();
    expect(sub.state).toBe('closed');
    await waitFor(() => sim.control.stats().openSockets === 0, 'socket closed');
  });
});
