import { fileURLToPath } from 'node:url';
import type { FlowVariant } from '../children/node-red-runtime.ts';
import type { Counter } from './burst.ts';
import { IpcChild } from './ipc-child.ts';
import { remoteCounter } from './remote-tally.ts';
import type { SimulatorAddresses } from './simulator-process.ts';

const entry = fileURLToPath(new URL('../children/node-red-runtime.ts', import.meta.url));

/** The embedded Node-RED of children/node-red-runtime.ts; its counting node is the Counter. */
export class NodeRedProcess {
  readonly #child: IpcChild<{ adminUrl: string }>;
  readonly counter: Counter;

  private constructor(child: IpcChild<{ adminUrl: string }>) {
    this.#child = child;
    this.counter = remoteCounter(child);
  }

  /** `withPackage: false`: a runtime that never loaded our package (the P2-hooks baseline). */
  static async start({ withPackage = true }: { withPackage?: boolean } = {}): Promise<NodeRedProcess> {
    return new NodeRedProcess(
      await IpcChild.start('node-red', entry, withPackage ? [] : ['--without-package']),
    );
  }

  /**
   * Deploys one flow (full deploy, replacing the previous one) and waits for its nodes; `idleSim`
   * is the second simulator of `websocket-hooked`'s events node.
   */
  async deploy(variant: FlowVariant, sim: SimulatorAddresses, idleSim?: SimulatorAddresses): Promise<void> {
    await this.#child.call('deploy', variant, sim, idleSim);
  }

  /** Whether our package's messaging hooks are in the runtime, and how often they were added and removed. */
  hooks(): Promise<{ present: boolean; added: number; removed: number }> {
    return this.#child.call('hooks');
  }

  /** Messages that carried an annotated snapshot and those flagged with a missing image; `reset` zeroes them. */
  images(reset = false): Promise<{ annotated: number; missing: number }> {
    return this.#child.call('images', reset);
  }

  /** Starts watching Node-RED's event loop delay (monitorEventLoopDelay, 10 ms resolution). */
  watchLoop(): Promise<void> {
    return this.#child.call('loopDelayStart');
  }

  /** The event loop delay since `watchLoop`, in ms. */
  loopDelay(): Promise<{ p50: number; p99: number; max: number }> {
    return this.#child.call('loopDelayStop');
  }

  stop(): Promise<void> {
    return this.#child.stop();
  }
}
