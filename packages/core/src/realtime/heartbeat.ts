import type { Clock } from '../ports.js';

export interface HeartbeatOptions {
  intervalMs: number;
  /** Ping/pong when true, otherwise an idle timeout (no frame for a whole interval = dead). */
  canPing: boolean;
  ping(): void;
  clock: Clock;
  /** While the socket is paused for backpressure no pong can be read, so no verdict is given. */
  isPaused(): boolean;
  /**
   * The peer stopped answering: the caller tears the socket down and reconnects. `idle`: only
   * the idle timeout of a socket that cannot ping says so, which a quiet but healthy stream
   * (no events for a whole interval) also meets: not evidence of an outage.
   */
  onDead(reason: string, idle: boolean): void;
}

export interface Heartbeat {
  /** Any frame or pong proves the connection is alive. */
  activity(): void;
  stop(): void;
}

/**
 * Watches one open socket for a half-open connection (the peer vanished without a close, so no
 * 'close' event will ever come). With ping: a ping every interval, dead when a whole interval
 * passed with neither a pong nor a frame, so detection takes at most two intervals.
 */
export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const controller = new AbortController();
  let heard = true;
  let awaitingPong = false;

  const run = async (): Promise<void> => {
    for (;;) {
      try {
        await options.clock.sleep(options.intervalMs, controller.signal);
      } catch {
        return;
      }
      if (controller.signal.aborted) return;
      if (options.isPaused()) {
        heard = true;
        awaitingPong = false;
        continue;
      }
      if (options.canPing) {
        if (awaitingPong && !heard) {
          options.onDead(`no pong within ${options.intervalMs} ms`, false);
          return;
        }
        heard = false;
        awaitingPong = true;
        try {
          options.ping();
        } catch {
          options.onDead('ping failed', false);
          return;
        }
      } else {
        if (!heard) {
          options.onDead(`no frame for ${options.intervalMs} ms`, true);
          return;
        }
        heard = false;
      }
    }
  };
  void run();

  return {
    activity() {
      heard = true;
    },
    stop() {
      controller.abort();
    },
  };
}
