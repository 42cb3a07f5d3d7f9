import { type Counter, type LocalTally, localCounter } from './burst.ts';
import type { IpcChild } from './ipc-child.ts';

const tallyActions = ['count', 'reset', 'waitFor', 'waitForId', 'times', 'cpu'] as const;

/**
 * Child side: answers the Counter calls from a tally kept in that process. Returns undefined
 * for any other action, which the child handles itself.
 */
export function answerTally(
  tally: LocalTally,
  action: string,
  args: unknown[],
): Promise<unknown> | undefined {
  if (!(tallyActions as readonly string[]).includes(action)) return undefined;
  const counter = localCounter(tally);
  switch (action as (typeof tallyActions)[number]) {
    case 'count':
      return counter.count();
    case 'reset':
      return counter.reset(args[0] === true);
    case 'waitFor':
      return counter.waitFor(args[0] as number, args[1] as number);
    case 'waitForId':
      return counter.waitForId(args[0] as number, args[1] as number);
    case 'times':
      return counter.times();
    case 'cpu':
      return counter.cpuMs();
  }
}

/** Parent side: a Counter whose tally lives in a child process. */
export function remoteCounter(child: IpcChild<unknown>): Counter {
  return {
    count: () => child.call('count'),
    reset: async (recordTimes = false) => {
      await child.call('reset', recordTimes);
    },
    waitFor: (count, timeoutMs) => child.call('waitFor', count, timeoutMs),
    waitForId: (id, timeoutMs) => child.call('waitForId', id, timeoutMs),
    times: () => child.call('times'),
    cpuMs: () => child.call('cpu'),
  };
}
