import type { Simulator } from '@observation-service/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ClientOptions } from '../src/client/options.js';
import {
  AuthError,
  createUndiciTransport,
  type HttpTransport,
  type ObservationClient,
  type Outage,
} from '../src/index.js';
import { systemClock } from '../src/node/system-clock.js';
import { createClient as createPortableClient } from '../src/portable.js';
import { client, optionsFor, simulator, until } from './helpers.js';

// A service that restarted no longer accepts the token it gave out, and answers the realtime
// upgrade with a plain HTTP 401. That is a login problem, on both entries: with email and
// password core logs in again and the stream goes on; with a fixed token it fails once with an
// AuthError. Never "cannot reach the service" (the runtime WebSocket hides the upgrade's status,
// and a probe that logged in again used to make the refusal look like a network failure).

/** Opens a socket of one kind and settles once it is closed (a refused upgrade closes it). */
type SocketKind = new (
  url: string,
) => { addEventListener(event: 'close' | 'error', listener: () => void): void };

interface Entry {
  name: string;
  open(options: ClientOptions): ObservationClient;
  Socket: SocketKind;
}

const portableClients: Array<() => Promise<void>> = [];
afterEach(async () => {
  // Runs before helpers' afterEach stops the simulator (hooks run in reverse order).
  while (portableClients.length > 0) await portableClients.pop()?.();
});

const entries: Entry[] = [
  { name: 'Node entry (ws)', open: (options) => client(options), Socket: WebSocket as unknown as SocketKind },
  {
    name: 'portable entry (runtime WebSocket, as n8n uses it)',
    open(options) {
      const transport = options.transport ?? createUndiciTransport();
      const created = createPortableClient({ ...options, transport, clock: systemClock });
      portableClients.push(async () => {
        await created.close();
        await transport.close?.();
      });
      return created;
    },
    Socket: globalThis.WebSocket as unknown as SocketKind,
  },
];

/**
 * How many refused upgrades the service counts for one socket of this kind offering `token`:
 * `ws` asks once; the runtime's WebSocket (undici) may ask again after a 401. A test then counts
 * a client's attempts in these units, whatever the runtime does.
 */
async function refusalsOfOneSocket(sim: Simulator, Socket: SocketKind, token: string): Promise<number> {
  const before = sim.control.stats().connectionsRefused;
  const url = `${sim.wsUrl}/events/realtime/${sim.serviceId}/0?token=${encodeURIComponent(token)}`;
  const socket = new Socket(url);
  await new Promise<void>((closed) => {
    socket.addEventListener('error', () => undefined);
    socket.addEventListener('close', () => closed());
  });
  return sim.control.stats().connectionsRefused - before;
}

const backoff = { baseMs: 5, maxMs: 20 };

/** A real transport that tells whether the client has a request under way, and which it sent. */
function watchedTransport(): { transport: HttpTransport; inFlight(): number; sent: string[] } {
  const real = createUndiciTransport();
  let inFlight = 0;
  const sent: string[] = [];
  const transport: HttpTransport = {
    async request(request) {
      sent.push(new URL(request.url).pathname);
      inFlight++;
      try {
        return await real.request(request);
      } finally {
        inFlight--;
      }
    },
    close: () => real.close?.() ?? Promise.resolve(),
  };
  return { transport, inFlight: () => inFlight, sent };
}

describe.each(entries)('a token refused at the realtime upgrade (HTTP 401), $name', (entry) => {
  it('with email and password: core logs in again, reconnects and loses no event; no outage is told', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const watched = watchedTransport();
    const c = entry.open(optionsFor(sim, { auth: sim.credentials, transport: watched.transport }));
    const received: string[] = [];
    const outages: Outage[] = [];
    const errors: Error[] = [];
    const stateErrors: string[] = [];
    const sub = c.events.subscribe(
      'all',
      {
        onEvent: (event) => void received.push(String(event.id)),
        onStateChange: (_state, info) => void (info.error && stateErrors.push(info.error.message)),
        onOutage: (outage) => void outages.push(outage),
        onError: (error) => void errors.push(error),
      },
      // No second read of history a while after the start (it would meet the refused token).
      { backoff, historyLagMs: 0 },
    );
    // The restart comes once the fresh start has read its first second from history and nothing
    // is under way: a REST read that met the refused token first would log in again before the
    // socket is refused, and the upgrade would not be what this test is about.
    await until(
      () => sub.state === 'open' && watched.sent.some((path) => path.endsWith('/events/history')),
      "the fresh start's read of history",
    );
    await until(() => watched.inFlight() === 0, 'no request under way');
    expect(sim.control.stats().logins).toBe(1);

    // The restart: every token given so far is refused, the open socket is cut.
    const oldToken = sim.token;
    sim.control.expireTokens();
    const perSocket = await refusalsOfOneSocket(sim, entry.Socket, oldToken);
    expect(perSocket).toBeGreaterThanOrEqual(1);
    const refusedBefore = sim.control.stats().connectionsRefused;
    sim.control.dropConnections();
    // Sent right after the cut, while the client is away or logging in again: each must arrive
    // once, from the catch-up or live.
    const missed = await sim.control.emit(5);
    await until(() => sub.stats.reconnects >= 1 && sub.state === 'open', 'open again');
    const [sentinel] = await sim.control.emit(1);
    await until(() => received.includes(String(sentinel?.id)), 'the sentinel');

    // The upgrade with the old token was refused (one socket's worth), then one new login.
    expect(sim.control.stats().connectionsRefused - refusedBefore).toBe(perSocket);
    expect(sim.control.stats().logins).toBe(2);
    expect(received).toEqual([...missed, sentinel].map((event) => String(event?.id)));
    // A renewed login is no outage, and no network failure was told on the way.
    expect(outages).toEqual([]);
    expect(errors).toEqual([]);
    expect(stateErrors.join('\n')).not.toMatch(/connection failed|cannot reach/);
    await sub.close();
  });

  it('with a fixed token that stays refused: one AuthError naming the token, no outage, no further attempt', async () => {
    const sim = await simulator({ form: 'extended', historySize: 0 });
    const refused = sim.token;
    sim.control.expireTokens();
    const perSocket = await refusalsOfOneSocket(sim, entry.Socket, refused);
    expect(perSocket).toBeGreaterThanOrEqual(1);
    const refusedBefore = sim.control.stats().connectionsRefused;

    const c = entry.open(optionsFor(sim, { auth: { token: refused } }));
    const outages: Outage[] = [];
    const errors: Error[] = [];
    const failed: Array<Error | undefined> = [];
    const sub = c.events.subscribe(
      'all',
      {
        onEvent: () => undefined,
        onStateChange: (state, info) => void (state === 'failed' && failed.push(info.error)),
        onOutage: (outage) => void outages.push(outage),
        onError: (error) => void errors.push(error),
      },
      { backoff },
    );
    await until(() => sub.state === 'failed', 'failed');
    const refusedAtFailure = sim.control.stats().connectionsRefused;

    // The window: a second client, with the token the service gives now, opens its stream and
    // receives a sentinel. At a 5-20 ms backoff a client that kept trying would have been
    // refused again meanwhile; the refused one stays failed and silent.
    const other = entry.open(optionsFor(sim));
    const seen: string[] = [];
    const otherSub = other.events.subscribe('all', { onEvent: (event) => void seen.push(String(event.id)) });
    await until(() => otherSub.state === 'open', 'the other client open');
    const [sentinel] = await sim.control.emit(1);
    await until(() => seen.includes(String(sentinel?.id)), 'the sentinel on the other client');
    expect(sim.control.stats().connectionsRefused).toBe(refusedAtFailure);
    expect(sub.state).toBe('failed');

    // One attempt: a fixed token cannot be renewed, so it is not offered again.
    expect(refusedAtFailure - refusedBefore).toBe(perSocket);
    expect(sim.control.stats().logins).toBe(0);
    // Told once, as a login problem with the status REST gives, never as an unreachable service.
    expect(errors).toHaveLength(1);
    expect(failed).toEqual(errors);
    const error = errors[0];
    expect(AuthError.isInstance(error)).toBe(true);
    expect((error as AuthError).status).toBe(401);
    expect((error as AuthError).code).toBe('AUTH_ERROR');
    expect(error?.message).toMatch(
      /refused the realtime connection .*HTTP 401.*the token is invalid or expired/,
    );
    expect(error?.message).not.toMatch(/cannot reach|Service URL|connection failed|code 1006/);
    expect(error?.message).not.toContain(refused);
    expect(outages).toEqual([]);
    await otherSub.close();
  });
});
