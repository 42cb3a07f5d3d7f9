import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  /**
   * n8n-core writes its settings (an encryption key it generates) to `<N8N_USER_FOLDER>/.n8n`,
   * or to the user's own `~/.n8n` without it: the bench's n8n gets this temporary folder
   * instead, removed when the process stops.
   */
  readonly userFolder: string;

  private constructor(child: IpcChild<unknown>, userFolder: string) {
    this.#child = child;
    this.userFolder = userFolder;
    this.counter = remoteCounter(child);
  }

  static async start(): Promise<N8nProcess> {
    const userFolder = mkdtempSync(join(tmpdir(), 'bench-n8n-'));
    try {
      const child = await IpcChild.start('n8n', entry, [], { env: { N8N_USER_FOLDER: userFolder } });
      return new N8nProcess(child, userFolder);
    } catch (error) {
      rmSync(userFolder, { recursive: true, force: true });
      throw error;
    }
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

  async stop(): Promise<void> {
    try {
      await this.#child.stop();
    } finally {
      rmSync(this.userFolder, { recursive: true, force: true });
    }
  }
}
