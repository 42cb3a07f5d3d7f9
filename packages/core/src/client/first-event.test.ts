import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthError } from '../errors/auth-error.js';
import { createClient } from '../node/create-client.js';
import { waitFor } from '../realtime/__tests__/recorder.js';

describe("events.first(): a host's test event", () => {
  let sim: Simulator;
  afterEach(async () => {
    await sim.stop();
  });

  const clientOf = (token = sim.token) =>
    createClient({ url: sim.siteUrl, serviceId: sim.serviceId, form: 'extended', auth: { token } });

  it('the newest stored event at once, with its snapshot prepared as a subscription would', async () => {
    sim = await startSimulator({ historySize: 0 });
    const stored = await sim.control.emit(3, { latenessMs: 0, snapshotDelayMs: 0 });
    const newest = stored.reduce((a, b) => (b.id > a.id ? b : a));
    const client = clientOf();
    const found = await client.events.first('all', { media: { snapshot: true } });
    expect(found?.stored).toBe(true);
    expect(found?.event.id).toBe(newest.id);
    expect(found?.meta.source).toBe('backfill');
    expect((found?.meta.raw as { id?: number } | undefined)?.id).toBe(newest.id);
    expect(found?.meta.media?.missing).toEqual([]);
    expect(found?.meta.media?.snapshot?.contentType).toBe('image/png');
    // Its subscription is gone once it answered.
    expect(client.openSubscriptions).toBe(0);
    await client.close();
  });

  it('without a stored match, the first live event that passes the filter', async () => {
    sim = await startSimulator({ historySize: 0 });
    const client = clientOf();
    const [task] = sim.world.tasks;
    const waiting = client.events.first('all', { filter: { eventNames: task?.events[0]?.name ?? '' } });
    await waitFor(() => sim.control.stats().openSockets === 1, 'the live socket');
    const emitted = await sim.control.emit(5, { latenessMs: 0, taskIds: [task?.id as number] });
    const found = await waiting;
    expect(found?.stored).toBe(false);
    expect(found?.meta.source).toBe('live');
    expect(emitted.map((event) => event.id)).toContain(found?.event.id);
    expect(found?.event.eventName).toBe(task?.events[0]?.name);
    expect(client.openSubscriptions).toBe(0);
    await client.close();
  });

  it('stopped by its signal: undefined, and nothing left open', async () => {
    sim = await startSimulator({ historySize: 0 });
    const client = clientOf();
    const controller = new AbortController();
    const waiting = client.events.first('all', { signal: controller.signal });
    await waitFor(() => sim.control.stats().openSockets === 1, 'the live socket');
    controller.abort();
    expect(await waiting).toBeUndefined();
    expect(client.openSubscriptions).toBe(0);
    await waitFor(() => sim.control.stats().openSockets === 0, 'the socket closed');
    await client.close();
  });

  it('a refused token rejects with the AuthError', async () => {
    sim = await startSimulator({ historySize: 0 });
    const client = clientOf('not-a-valid-token');
    await expect(client.events.first('all')).rejects.toSatisfy(AuthError.isInstance);
    expect(client.openSubscriptions).toBe(0);
    await client.close();
  });
});
