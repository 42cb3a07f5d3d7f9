import type { IPollFunctions, ITriggerFunctions } from 'n8n-workflow';
import { toNodeError } from './node-error';

/** Reads a trigger's parameters, turning a validation failure into an n8n node error. */
export function readTriggerParameters<C extends ITriggerFunctions | IPollFunctions, T>(
  context: C,
  read: (context: C) => T,
): T {
  try {
    return read(context);
  } catch (error) {
    throw toNodeError(context.getNode(), error);
  }
}

/** A close function that runs its steps once, however often it is called. */
export interface Closer {
  /** Runs the steps on the first call; later calls wait for that first run and do nothing more. */
  close(): Promise<void>;
  /** Whether close() has been called (the user stopped listening, or n8n deactivated the workflow). */
  readonly started: boolean;
}

/**
 * n8n may call a trigger's closeFunction more than once (deactivate, then shutdown): the second
 * call must wait for the first and not close the stream or client twice.
 */
export function closeOnce(steps: () => Promise<void>): Closer {
  let closing: Promise<void> | undefined;
  return {
    close: async () => {
      closing ??= steps();
      await closing;
    },
    get started() {
      return closing !== undefined;
    },
  };
}
