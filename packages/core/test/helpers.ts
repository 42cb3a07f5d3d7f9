import { type Simulator, type SimulatorOptions, startSimulator } from '@observation-service/simulator';
import { afterEach } from 'vitest';
import type { ClientOptions } from '../src/client/options.js';
import {
  createClient,
  createUndiciTransport,
  type HttpTransport,
  type ObservationClient,
} from '../src/index.js';
import { systemClock } from '../src/node/system-clock.js';
import type { Clock, WebSocketConstructor } from '../src/ports.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A simulator stopped after the current test. */
export async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator(options);
  cleanups.push(() => sim.stop());
  return sim;
}

/** A client closed after the current test (before its simulator stops). */
export function client(options: ClientOptions): ObservationClient {
  const created = createClient(options);
  cleanups.push(() => created.close());
  return created;
}

/** Client options for a simulator: extended (service id) unless `basic`. */
export function optionsFor(sim: Simulator, extra: Partial<ClientOptions> = {}): ClientOptions {
  return {
    url: sim.siteUrl,
    serviceId: sim.serviceId,
    auth: { token: sim.token },
    retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
    ...extra,
  };
}

/**
 * A real clock whose waits are recorded (and shortened), to check backoff and Retry-After without
 * slow tests. Each request's deadline also waits on the clock: a wait of exactly the client's
 * `timeoutMs` (default 30 s) is that deadline, so it runs at full length and is not recorded.
 */
export function recordingClock(timeoutMs = 30_000): Clock & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => Date.now(),
    sleep(ms, signal) {
      if (ms === timeoutMs) return systemClock.sleep(ms, signal);
      waits.push(ms);
      return systemClock.sleep(Math.min(ms, 5), signal);
    },
  };
}

export async function toArray<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** A real undici transport that also records the offset and limit of every history request. */
export function recording(): { transport: HttpTransport; sent: Array<{ offset: number; limit: number }> } {
  const real = createUndiciTransport();
  const sent: Array<{ offset: number; limit: number }> = [];
  const transport: HttpTransport = {
    request(req) {
      const url = new URL(req.url);
      if (url.pathname.endsWith('/events/history')) {
        sent.push({
          offset: Number(url.searchParams.get('offset')),
          limit: Number(url.searchParams.get('limit')),
        });
      }
      return real.request(req);
    },
    close: () => real.close?.() ?? Promise.resolve(),
  };
  return { transport, sent };
}

/**
 * Waits (polling) until `check` holds; fails after `timeoutMs`, naming what it waited for. Given
 * `advancing` (a count of work done, such as events received), the time runs from its last change
 * instead: a loaded runner still getting through a storm is slower, not red; a stall still fails.
 */
export type Until = (
  check: () => boolean,
  what: string,
  timeoutMs?: number,
  advancing?: () => number,
) => Promise<void>;

/**
 * An `until` whose waits last at most `defaultTimeoutMs` unless told otherwise: each test file
 * states once how long evidence may take to come there (a storm on a loaded runner, or a socket).
 */
export function waiter(defaultTimeoutMs: number): Until {
  return async (check, what, timeoutMs = defaultTimeoutMs, advancing) => {
    let since = Date.now();
    let last = advancing?.();
    while (!check()) {
      const now = advancing?.();
      if (now !== last) {
        last = now;
        since = Date.now();
      } else if (Date.now() - since > timeoutMs) {
        throw new Error(
          `timed out after ${timeoutMs} ms${advancing ? ' without progress' : ''} waiting for ${what}`,
        );
      }
      await new Promise((wake) => setTimeout(wake, 5));
    }
  };
}

export const until = waiter(10_000);

/** Opens a `ws`-style socket and settles with 'open', or with the error that stopped it. */
export function socketOutcome(Socket: WebSocketConstructor, url: string): Promise<'open' | Error> {
  return new Promise((resolve) => {
    const socket = new Socket(url) as unknown as {
      on(event: 'open', listener: () => void): void;
      on(event: 'error', listener: (error: Error) => void): void;
      close(): void;
    };
    socket.on('open', () => {
      socket.close();
      resolve('open');
    });
    socket.on('error', resolve);
  });
}
