import { fileURLToPath } from 'node:url';
import type { SimulatorOptions } from '@observation-service/simulator';
import { IpcChild } from './ipc-child.ts';

export interface SimulatorAddresses {
  apiUrl: string;
  wsUrl: string;
  siteUrl: string;
  token: string;
  serviceId: string;
}

const entry = fileURLToPath(new URL('../children/simulator-server.ts', import.meta.url));

/** A simulator running in its own process (children/simulator-server.ts), driven over IPC. */
export class SimulatorProcess {
  readonly #child: IpcChild<SimulatorAddresses>;

  private constructor(child: IpcChild<SimulatorAddresses>) {
    this.#child = child;
  }

  static async start(options: SimulatorOptions = {}): Promise<SimulatorProcess> {
    const child = await IpcChild.start<SimulatorAddresses>('simulator', entry, [
      JSON.stringify({ rate: 0, historySize: 0, ...options }),
    ]);
    return new SimulatorProcess(child);
  }

  get addresses(): SimulatorAddresses {
    return this.#child.ready;
  }

  /** A control action of the simulator (`setRate`, `dropConnections`, `stats`…). */
  call<T = unknown>(action: string, ...args: unknown[]): Promise<T> {
    return this.#child.call<T>(action, ...args);
  }

  emit(
    count: number,
    options?: { taskIds?: number[] },
  ): Promise<{ emitted: number; firstId?: number; lastId?: number }> {
    return options ? this.call('emit', count, options) : this.call('emit', count);
  }

  /** `count` events at `rate`/s, one at a time; the id and send time (clock.now()) of each. */
  pace(
    rate: number,
    count: number,
    options?: { taskIds?: number[]; latenessMs?: number; snapshotDelayMs?: number | 'never' },
  ): Promise<{ ids: number[]; sentAt: number[] }> {
    return options ? this.call('pace', rate, count, options) : this.call('pace', rate, count);
  }

  /** CPU milliseconds the simulator process has used so far. */
  cpuMs(): Promise<number> {
    return this.call('cpu');
  }

  /** Extended realtime URL for every task (raw clients). */
  realtimeUrl(): string {
    const { wsUrl, serviceId, token } = this.addresses;
    return `${wsUrl}/events/realtime/${serviceId}/0?token=${encodeURIComponent(token)}`;
  }

  stop(): Promise<void> {
    return this.#child.stop();
  }
}
