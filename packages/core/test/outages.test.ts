import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  AuthError,
  HttpError,
  ObservationError,
  type Outage,
  outageOf,
  type Recovery,
  type SubscriptionState,
  type SubscriptionStatus,
} from '../src/index.js';
import { client, optionsFor, simulator, waiter } from './helpers.js';

const until = waiter(30_000);

/** A subscription that records its states, outages and recoveries. */
function watched(sim: Awaited<ReturnType<typeof simulator>>, extra: Parameters<typeof optionsFor>[1] = {}) {
  const states: SubscriptionState[] = [];
  const outages: Outage[] = [];
  const recoveries: Recovery[] = [];
  const errors: Error[] = [];
  const statuses: SubscriptionStatus[] = [];
  const sub = client(optionsFor(sim, { form: 'extended', ...extra })).events.subscribe(
    'all',
    {
      onEvent: () => undefined,
      onStateChange: (state) => void states.push(state),
      onStatus: (status) => void statuses.push(status),
      onOutage: (outage) => void outages.push(outage),
      onRecovered: (recovery) => void recoveries.push(recovery),
      onError: (error) => void errors.push(error),
    },
    { backoff: { baseMs: 50, maxMs: 200 } },
  );
  return { sub, states, outages, recoveries, errors, statuses };
}

describe('outages: once per outage, whatever the retries, and once when it is over', () => {
  it('a service that refuses every reconnect for a while: one outage, one recovery', async () => {
    const sim = await simulator({ historySize: 0 });
    const run = watched(sim);
    await until(() => run.sub.state === 'open', 'open');
    sim.control.refuseConnections(1_500);
    sim.control.dropConnections();
    await until(() => run.recoveries.length > 0, 'recovered');
    const retries = run.states.filter((state) => state === 'reconnecting').length;
    // Several attempts failed while it was down, and they were told once.
    expect(retries).toBeGreaterThan(2);
    // What to show: its reconnect attempts, counted; never "cannot connect" (it was open before).
    const reconnecting = run.statuses.filter((status) => status.state === 'reconnecting');
    expect(reconnecting.length).toBe(retries);
    expect(reconnecting.some((status) => Number.isInteger(status.attempt))).toBe(true);
    // Each retry with why the try before it failed, for a host that logs retries (n8n, at debug):
    // the drop, then the service's refusals.
    const retried = reconnecting.filter((status) => status.attempt !== undefined);
    expect(retried.every((status) => typeof status.retryingAfter === 'string')).toBe(true);
    expect(retried.filter((status) => status.retryingAfter?.includes('503'))).not.toEqual([]);
    expect(run.statuses.filter((status) => status.cannotConnect !== undefined)).toEqual([]);
    expect(run.outages.map((outage) => outage.reason)).toHaveLength(1);
    expect(run.recoveries).toHaveLength(1);
    expect(run.recoveries[0]?.downMs).toBeGreaterThanOrEqual(1_000);
    // A plain drop, back at the first reconnect, is no outage; a sentinel event after it proves
    // the stream is open again and nothing more was told.
    const reconnects = run.sub.stats.reconnects;
    sim.control.dropConnections();
    await until(() => run.sub.stats.reconnects > reconnects && run.sub.state === 'open', 'back after a drop');
    expect(run.outages).toHaveLength(1);
    expect(run.recoveries).toHaveLength(1);
    // Refused again: a second outage is a new one.
    sim.control.refuseConnections(1_000);
    sim.control.dropConnections();
    await until(() => run.recoveries.length > 1, 'recovered again');
    expect(run.outages).toHaveLength(2);
    expect(run.outages[1]?.short).toBe('HTTP 503');
    await run.sub.close();
  });

  it('a wrong address: one outage saying so, however often the first connect is tried; onError hears of the task list only without onOutage', async () => {
    // The address answers 404 to everything, and counts what it is asked.
    let requests = 0;
    const wrong = createHttpServer((_request, response) => {
      requests++;
      response.statusCode = 404;
      response.end();
    });
    await new Promise<void>((listening) => wrong.listen(0, '127.0.0.1', listening));
    const url = `http://127.0.0.1:${(wrong.address() as AddressInfo).port}/wrong/place`;
    const sim = await simulator({ historySize: 0, form: 'basic' });
    // The basic form reads the task list first, and retries it.
    const run = watched(sim, { url, form: 'basic' });
    await until(() => requests > 3, 'four attempts');
    expect(run.outages).toHaveLength(1);
    expect(run.outages[0]?.reason).toBe('not-found');
    expect(run.outages[0]?.text).toBe('no Observation API at this address (HTTP 404)');
    expect(run.outages[0]?.detail).toContain('/wrong/place/apiserver');
    expect(run.recoveries).toHaveLength(0);
    // What to show while it tries: why it cannot connect, as short as a status ring holds.
    expect(run.statuses.at(-1)).toEqual({ state: 'connecting', cannotConnect: 'HTTP 404' });
    // Told as the outage, and not again through onError at each of the attempts.
    expect(run.errors).toEqual([]);
    await run.sub.close();
    // A host without onOutage gets each attempt through onError.
    const errors: Error[] = [];
    const plain = client(optionsFor(sim, { url, form: 'basic' })).events.subscribe(
      'all',
      { onEvent: () => undefined, onError: (error) => void errors.push(error) },
      { backoff: { baseMs: 50, maxMs: 200 } },
    );
    const listFailures = () =>
      errors.filter((error) => ObservationError.isInstance(error) && error.code === 'TASK_LIST_FAILED')
        .length;
    await until(() => listFailures() > 3, 'four attempts told through onError');
    await plain.close();
    await new Promise<void>((closed) => wrong.close(() => closed()));
  });

  it('a refused token fails the stream, told once by onError, and is no outage (nothing to wait for)', async () => {
    const sim = await simulator({ historySize: 0 });
    const run = watched(sim, { auth: { token: 'not-a-token' } });
    await until(() => run.sub.state === 'failed', 'failed');
    expect(run.outages).toEqual([]);
    // What to show: failed for good, the credentials refused, and the error it ended with.
    const last = run.statuses.at(-1);
    expect(last).toEqual({ state: 'failed', credentialsRefused: true, failure: last?.failure });
    expect(AuthError.isInstance(last?.failure)).toBe(true);
    expect(run.errors.filter((error) => AuthError.isInstance(error))).toHaveLength(1);
    expect(outageOf(run.errors[0] as Error)).toMatchObject({
      reason: 'credentials',
      short: 'credentials refused',
    });
    expect(JSON.stringify(run.errors.map((error) => error.message))).not.toContain('not-a-token');
    await run.sub.close();
  });
});

describe('outageOf', () => {
  const http = (status: number) =>
    new HttpError({ status, method: 'GET', url: 'http://host/apiserver/tasks' });
  it('reads the reason through what core wrapped around it', () => {
    const wrapped = (cause: Error) =>
      new ObservationError('TASK_LIST_FAILED', 'Reading the task list failed (attempt 3), retrying', {
        cause,
      });
    expect(outageOf(wrapped(http(401))).reason).toBe('credentials');
    expect(outageOf(wrapped(http(403))).reason).toBe('forbidden');
    expect(outageOf(wrapped(http(404))).reason).toBe('not-found');
    expect(outageOf(wrapped(http(503)))).toMatchObject({
      reason: 'service-error',
      text: 'the service answered HTTP 503',
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(outageOf(wrapped(refused))).toMatchObject({
      reason: 'unreachable',
      text: 'cannot reach the service (ECONNREFUSED)',
      short: 'ECONNREFUSED',
    });
    expect(outageOf(new AuthError('The service refused the login (HTTP 401)')).reason).toBe('credentials');
    expect(outageOf(new Error('Realtime connection lost: closed with code 1006'))).toMatchObject({
      reason: 'unreachable',
      text: 'cannot reach the service',
    });
    expect(outageOf(new Error('something odd')).reason).toBe('other');
  });

  it("reads a real refused connection's system code through fetch's wrapping, and keeps a ring's words short", async () => {
    const server = createServer();
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((closed) => server.close(() => closed()));
    const failed = await fetch(`http://127.0.0.1:${port}/`).then(
      () => undefined,
      (error: Error) => error,
    );
    if (!failed) throw new Error('a closed port answered');
    const wrapped = new ObservationError(
      'TASK_LIST_FAILED',
      `Reading the task list failed: ${failed.message}`,
      {
        cause: failed,
      },
    );
    expect(outageOf(wrapped)).toMatchObject({ reason: 'unreachable', short: 'ECONNREFUSED' });
    expect(outageOf(new ObservationError('TASK_LIST_FAILED', 'failed', { cause: http(404) }))).toMatchObject({
      short: 'HTTP 404',
      detail: 'GET http://host/apiserver/tasks failed with HTTP 404',
    });
    const long = outageOf(new Error('x'.repeat(100))).short;
    expect(long).toHaveLength(40);
    expect(long.endsWith('…')).toBe(true);
  });
});
