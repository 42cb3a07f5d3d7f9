import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';

/**
 * A child process of the suite driven over IPC: it sends `{ ready }` once started, answers
 * `{ id, action, args }` with `{ id, ok, result | error }`, and shuts down cleanly when the IPC
 * channel closes.
 */
export class IpcChild<Ready> {
  readonly ready: Ready;
  readonly #child: ChildProcess;
  readonly #waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  #next = 0;

  private constructor(name: string, child: ChildProcess, ready: Ready) {
    this.#child = child;
    this.ready = ready;
    child.on('message', (message: { id: number; ok: boolean; result?: unknown; error?: string }) => {
      const waiter = this.#waiting.get(message.id);
      if (!waiter) return;
      this.#waiting.delete(message.id);
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new Error(`${name}: ${message.error}`));
    });
    child.on('exit', (code) => {
      for (const waiter of this.#waiting.values()) waiter.reject(new Error(`${name} exited (${code})`));
      this.#waiting.clear();
    });
  }

  static async start<Ready>(
    name: string,
    entry: string,
    args: string[],
    options: { execArgv?: string[]; env?: Record<string, string> } = {},
  ): Promise<IpcChild<Ready>> {
    const child = fork(entry, args, {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [...process.execArgv, ...(options.execArgv ?? [])],
      env: { ...process.env, ...options.env },
    });
    const [message] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => {
        throw new Error(`${name} exited with ${code} before it was ready`);
      }),
    ])) as [{ ready: Ready }];
    return new IpcChild(name, child, message.ready);
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

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = once(this.#child, 'exit');
    this.#child.disconnect();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The child side: answers calls with `perform` and reports it is ready. */
export function serveIpc(
  ready: unknown,
  perform: (action: string, args: unknown[]) => Promise<unknown>,
  onDisconnect: () => void,
): void {
  process.on('message', (call: { id: number; action: string; args: unknown[] }) => {
    perform(call.action, call.args).then(
      (result) => process.send?.({ id: call.id, ok: true, result }),
      (error: unknown) => process.send?.({ id: call.id, ok: false, error: String(error) }),
    );
  });
  process.on('disconnect', onDisconnect);
  process.send?.({ ready });
}
