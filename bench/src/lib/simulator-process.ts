import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { SimulatorOptions } from '@observation-service/simulator';

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
  readonly #child: ChildProcess;
  readonly #waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  #next = 0;
  readonly addresses: SimulatorAddresses;

  private constructor(child: ChildProcess, addresses: SimulatorAddresses) {
    this.#child = child;
    this.addresses = addresses;
    child.on('message', (message: { id: number; ok: boolean; result?: unknown; error?: string }) => {
      const waiter = this.#waiting.get(message.id);
      if (!waiter) return;
      this.#waiting.delete(message.id);
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new Error(`simulator: ${message.error}`));
    });
    child.on('exit', (code) => {
      for (const waiter of this.#waiting.values()) waiter.reject(new Error(`simulator exited (${code})`));
      this.#waiting.clear();
    });
  }

  static async start(options: SimulatorOptions = {}): Promise<SimulatorProcess> {
    const child = fork(entry, [JSON.stringify({ rate: 0, historySize: 0, ...options })], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const [message] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => {
        throw new Error(`the simulator process exited with ${code} before it was ready`);
      }),
    ])) as [{ ready: SimulatorAddresses }];
    return new SimulatorProcess(child, message.ready);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  call<T = unknown>(action: string, ...args: unknown[]): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#child.send({ id, action, args });
    });
  }

  emit(
    count: number,
    options?: { taskIds?: number[] },
  ): Promise<{ emitted: number; firstId?: number; lastId?: number }> {
    return this.call('emit', count, options);
  }

  /** `count` events at `rate`/s, one at a time; the id and send time (clock.now()) of each. */
  pace(rate: number, count: number): Promise<{ ids: number[]; sentAt: number[] }> {
    return this.call('pace', rate, count);
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

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = once(this.#child, 'exit');
    this.#child.disconnect();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
