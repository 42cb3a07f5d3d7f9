import { fileURLToPath } from 'node:url';
import type { Counter } from './burst.ts';
import { IpcChild } from './ipc-child.ts';
import { remoteCounter } from './remote-tally.ts';
import type { SimulatorAddresses } from './simulator-process.ts';

const entry = fileURLToPath(new URL('../children/n8n-trigger.ts', import.meta.url));

/** n8n-core hosting the built Observation Trigger (children/n8n-trigger.ts), or a raw ws client. */
export class N8nProcess {
  readonly #child: IpcChild<unknown>;
  readonly counter: Counter;

  private constructor(child: IpcChild<unknown>) {
    this.#child = child;
    this.counter = remoteCounter(child);
  }

  static async start(): Promise<N8nProcess> {
    return new N8nProcess(await IpcChild.start('n8n', entry, []));
  }

  /**
   * Activates the trigger (as an active workflow, `batchSize` events per execution) or the raw
   * baseline, closing what was active.
   */
  async activate(variant: 'trigger' | 'raw', sim: SimulatorAddresses, batchSize = 1): Promise<void> {
    await this.#child.call('activate', variant, sim, batchSize);
  }

  async deactivate(): Promise<void> {
    await this.#child.call('deactivate');
  }

  stop(): Promise<void> {
    return this.#child.stop();
  }
}
