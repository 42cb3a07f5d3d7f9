import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SimulatorOptions } from '../options.js';
import { type Simulator, startSimulator } from '../simulator.js';
import { control, Listener, realtimeUrl, upgradeAnswer } from '../testing/sim-client.js';

/**
 * upgradeDelayMs / control.delayUpgrades: the websocket upgrade is answered late (a proxy, a busy
 * service). Events keep being recorded and pushed to the other sockets meanwhile; the waiting
 * socket gets only what is published once it is open.
 */

const started: Simulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.stop()));
});

async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ historySize: 10, ...options });
  started.push(sim);
  return sim;
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A socket that records what it receives from the moment it is created, and when it opened. */
function connecting(url: string) {
  const ws = new WebSocket(url);
  const messages: { id: number }[] = [];
  ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8'))));
  ws.on('error', () => {});
  const opened = once(ws, 'open').then(() => Date.now());
  // Abandoned on purpose by some tests: a rejection nobody awaits is no failure.
  opened.catch(() => {});
  const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
  return { ws, messages, opened, closed };
}

/**
 * Opens a socket while its upgrade is held, publishes one event while it waits
 * (seen by an already open socket) and one once it is open; returns what each got.
 */
async function publishWhileOpening(sim: Simulator, other: Listener) {
  const startedAt = Date.now();
  const late = connecting(realtimeUrl(sim, '0'));
  // Evidence that the upgrade has arrived and is being held, not a guess at timing.
  await until(() => sim.control.stats().upgradesPending === 1, 'the upgrade to be held');
  const [during] = await sim.control.emit(1, { latenessMs: 0 });
  await other.waitFor(1);
  const openedAt = await late.opened;
  expect(sim.control.stats().upgradesPending).toBe(0);
  const [after] = await sim.control.emit(1, { latenessMs: 0 });
  await until(() => late.messages.length >= 1, 'the event published after the open');
  late.ws.terminate();
  return {
    waitedMs: openedAt - startedAt,
    during: (during as { id: number }).id,
    after: (after as { id: number }).id,
    got: late.messages.map((message) => message.id),
    otherGot: other.json<{ id: number }>().map((message) => message.id),
  };
}

describe('upgradeDelayMs', () => {
  it('answers the upgrade that late; the socket gets what is published after it opened, not during', async () => {
    const sim = await simulator({ upgradeDelayMs: 700 });
    // This one waits too; it is open before the one under test starts.
    const other = await Listener.open(realtimeUrl(sim, '0'));
    const result = await publishWhileOpening(sim, other);
    expect(result.waitedMs).toBeGreaterThanOrEqual(700);
    // The event of the delay reached the open socket, never the waiting one; the sentinel
    // published after the open arrived first and alone.
    expect(result.otherGot).toContain(result.during);
    expect(result.got).toEqual([result.after]);
    other.close();
  });

  it('control.delayUpgrades sets it at run time (also over HTTP); 0 and reset() answer at once again', async () => {
    const sim = await simulator();
    const other = await Listener.open(realtimeUrl(sim, '0'));
    sim.control.delayUpgrades(400);
    const result = await publishWhileOpening(sim, other);
    expect(result.waitedMs).toBeGreaterThanOrEqual(400);
    expect(result.got).toEqual([result.after]);
    expect(result.otherGot).toContain(result.during);

    expect((await control(sim, 'delayUpgrades', { ms: 0 })).status).toBe(200);
    const quick = await upgradeAnswer(realtimeUrl(sim, '0'));
    expect(quick.status).toBe(101);
    expect(sim.control.stats().upgradesPending).toBe(0);

    sim.control.delayUpgrades(30_000);
    const held = connecting(realtimeUrl(sim, '0'));
    await until(() => sim.control.stats().upgradesPending === 1, 'the upgrade to be held');
    sim.control.reset();
    // reset() restores the option (0) for upgrades that arrive from now on.
    expect((await upgradeAnswer(realtimeUrl(sim, '0'))).status).toBe(101);
    held.ws.terminate();
    await until(() => sim.control.stats().upgradesPending === 0, 'the abandoned upgrade to be forgotten');
    expect(() => sim.control.delayUpgrades(1.5)).toThrow(
      'delayUpgrades: ms must be an integer from 0 to 60000 (milliseconds), got 1.5',
    );
    other.close();
  });

  it('answers a refused upgrade late too, with the status it would have given', async () => {
    const sim = await simulator({ upgradeDelayMs: 300 });
    const startedAt = Date.now();
    const refused = await upgradeAnswer(realtimeUrl(sim, '0', 'not-a-token'));
    expect(refused.status).toBe(401);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(300);
  });

  it('stop() ends upgrades still waiting', async () => {
    const sim = await simulator({ upgradeDelayMs: 30_000 });
    const held = connecting(realtimeUrl(sim, '0'));
    await until(() => sim.control.stats().upgradesPending === 1, 'the upgrade to be held');
    await sim.stop();
    await held.closed;
    expect(held.ws.readyState).toBe(WebSocket.CLOSED);
  });
});
