import { afterEach, describe, expect, it } from 'vitest';
import { AuthError, createUndiciTransport } from '../src/index.js';
import { systemClock } from '../src/node/system-clock.js';
import {
  createClient,
  type EventMeta,
  type ObservationClient,
  type SubscriptionState,
} from '../src/portable.js';
import { optionsFor, simulator } from './helpers.js';

// The portable client's realtime path on the runtime's own WHATWG WebSocket (Node ≥ 22), as the
// n8n nodes use it. That socket cannot send pings nor see pongs or the server's pings, so a
// connection that went silent is found by the idle watchdog instead: no frame for a whole
// heartbeat interval, then a quiet reconnect (a quiet stream meets it too) and a catch-up of what
// was sent meanwhile.

const opened: ObservationClient[] = [];
afterEach(async () => {
  while (opened.length > 0) await opened.pop()?.close();
});

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what}: not reached in time`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('realtime over the runtime WebSocket (portable client)', () => {
  it('the idle watchdog finds a silent socket, reconnects and catches up exactly once', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const transport = createUndiciTransport();
    const client = createClient({ ...optionsFor(sim), transport, clock: systemClock });
    opened.push(client);
    const received: Array<{ id: string; source: EventMeta['source'] }> = [];
    const states: Array<{ state: SubscriptionState; message?: string }> = [];
    const subscription = client.events.subscribe(
      'all',
      {
        onEvent: (event, meta) => void received.push({ id: String(event.id), source: meta.source }),
        onStateChange: (state, info) => void states.push({ state, message: info.error?.message }),
      },
      { heartbeatMs: 300 },
    );
    await waitFor(() => subscription.state === 'open', 'open');
    // Proves the socket is the runtime's: it carries live events.
    const live = await sim.control.emit(2);
    await waitFor(() => received.length === 2, 'live events');

    sim.control.halfOpen();
    // Sent while the socket is silent: they can only come back through the catch-up.
    const missed = await sim.control.emit(5);
    await waitFor(() => received.length === 7, 'missed events');
    // The fresh start's own read-back may find them first; the watchdog still has to act.
    await waitFor(() => subscription.stats.reconnects >= 1, 'the reconnect');
    expect(received.slice(2).map((entry) => entry.id)).toEqual(missed.map((event) => String(event.id)));
    expect(received.slice(2).every((entry) => entry.source === 'backfill')).toBe(true);
    expect(subscription.stats.reconnects).toBeGreaterThanOrEqual(1);
    // The reconnect worked at once: nothing to report (a quiet stream looks the same to this socket).
    expect(states.map((entry) => entry.state)).not.toContain('reconnecting');

    // After the reconnect, live again; a sentinel proves nothing was delivered twice.
    const sentinel = await sim.control.emit(1);
    await waitFor(() => received.some((entry) => entry.id === String(sentinel[0]?.id)), 'sentinel');
    const ids = received.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...live, ...missed, ...sentinel].map((event) => String(event.id)));
    await client.close();
    await transport.close?.();
  });

  it('a quiet stream (no events, server pings it cannot see) reconnects quietly: no reconnecting state, no warning, nothing lost', async () => {
    // The simulator pings every 100 ms as uvicorn does every 20 s; this socket answers them but
    // never sees them, so to its watchdog a quiet stream looks like a dead one.
    const sim = await simulator({ form: 'extended', historySize: 0, pingIntervalMs: 100 });
    const transport = createUndiciTransport();
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn: (message: string) => void warnings.push(message),
      error() {},
    };
    const client = createClient({ ...optionsFor(sim), transport, clock: systemClock, logger });
    opened.push(client);
    const received: string[] = [];
    const states: SubscriptionState[] = [];
    const subscription = client.events.subscribe(
      'all',
      {
        onEvent: (event) => void received.push(String(event.id)),
        onStateChange: (state) => void states.push(state),
      },
      { heartbeatMs: 300 },
    );
    await waitFor(() => subscription.state === 'open', 'open');
    const before = sim.control.stats().connectionsTotal;
    // Evidence of three quiet intervals: the watchdog's three reconnects, seen by the service.
    await waitFor(() => sim.control.stats().connectionsTotal >= before + 3, 'three quiet reconnects');
    expect(states).not.toContain('reconnecting');
    expect(warnings).toEqual([]);
    // Still live, and nothing twice: a sentinel arrives once.
    await waitFor(() => subscription.state === 'open' && sim.control.stats().openSockets === 1, 'open again');
    const [sentinel] = await sim.control.emit(1);
    await waitFor(() => received.includes(String(sentinel?.id)), 'sentinel');
    expect(received).toEqual([String(sentinel?.id)]);
    await client.close();
    await transport.close?.();
  });

  it('a refused token fails the subscription with an AuthError, as on Node (REST tells the status)', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const transport = createUndiciTransport();
    const client = createClient({
      ...optionsFor(sim, { auth: { token: 'not-a-valid-token' } }),
      transport,
      clock: systemClock,
    });
    opened.push(client);
    const errors: Error[] = [];
    const subscription = client.events.subscribe(
      'all',
      {
        onEvent: () => undefined,
        onStateChange: (_state, info) => void (info.error && errors.push(info.error)),
      },
      { heartbeatMs: 300 },
    );
    await waitFor(() => subscription.state === 'failed', 'failed');
    expect(AuthError.isInstance(errors.at(-1))).toBe(true);
    expect((errors.at(-1) as AuthError).status).toBe(401);
    expect(errors.at(-1)?.message).not.toContain('not-a-valid-token');
    expect(sim.control.stats().connectionsRefused).toBeGreaterThanOrEqual(1);
    await client.close();
    await transport.close?.();
  });
});
