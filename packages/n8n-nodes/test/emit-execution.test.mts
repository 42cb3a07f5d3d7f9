import type { IRun, ITriggerFunctions } from 'n8n-workflow';
import { describe, expect, test } from 'vitest';
import { emitExecution, executionKey, lostWithWorker } from '../nodes/ObservationTrigger/emit-execution';

/** The run n8n 2.41's main reports for a job whose worker died (WorkflowRunner.processError). */
const lostRun = {
  status: 'error',
  data: {
    resultData: {
      runData: {},
      error: {
        message:
          'This execution failed to be processed too many times and will no longer retry. To allow this execution to complete, please break down your workflow or scale up your workers or adjust your worker settings.',
      },
    },
  },
} as unknown as IRun;
const successRun = {
  status: 'success',
  data: { resultData: { runData: { Trigger: [] } } },
} as unknown as IRun;
const failedRun = {
  status: 'error',
  data: { resultData: { runData: { Code: [] }, error: { message: 'a node failed' } } },
} as unknown as IRun;

/**
 * Records emits as n8n's main receives them; the test settles each one like n8n would. A
 * hand-made context because the runs it settles with (a worker lost in queue mode, an execution
 * n8n could not start) come only from a real queue-mode cluster, which the queue-mode e2e runs;
 * here each outcome is played exactly. What core does with a failure (the next attempt, under
 * the next key) is tested through n8n's engine in trigger-node.test.mts.
 */
function host() {
  type Done = { resolve: (run: IRun | undefined) => void; reject: (error: Error) => void };
  const emits: Array<{ key: string | undefined; done: Done }> = [];
  const context = {
    emit: (_items: unknown, _response: unknown, done: Done, key?: string) => emits.push({ key, done }),
  } as unknown as ITriggerFunctions;
  const outcome = (rerunLost: boolean) => {
    const settled = emitExecution(context, [{ json: { id: 1 } }], 'k:1', rerunLost).then(
      () => 'acknowledged',
      (error: Error) => `failed: ${error.message}`,
    );
    return { settled, done: emits.at(-1)?.done as Done };
  };
  return { emits, outcome };
}

describe('lostWithWorker', () => {
  test('recognizes only n8n’s "worker lost" failure', () => {
    expect(lostWithWorker(lostRun)).toBe(true);
    expect(lostWithWorker(successRun)).toBe(false);
    expect(lostWithWorker(failedRun)).toBe(false);
    expect(lostWithWorker(undefined)).toBe(false);
  });
});

describe('emitExecution', () => {
  test('one emit under the key; acknowledged when n8n ends the execution, whatever its nodes did', async () => {
    const { emits, outcome } = host();
    const success = outcome(true);
    success.done.resolve(successRun);
    const failed = outcome(true);
    failed.done.resolve(failedRun);
    expect(await success.settled).toBe('acknowledged');
    expect(await failed.settled).toBe('acknowledged');
    expect(emits.map((e) => e.key)).toEqual(['k:1', 'k:1']);
  });

  test('a key n8n refused (its execution exists, finished or crashed): acknowledged, nothing emitted again', async () => {
    const { emits, outcome } = host();
    const refused = outcome(false);
    // n8n 2.41 resolves the done promise with no run when it refused the key.
    refused.done.resolve(undefined);
    expect(await refused.settled).toBe('acknowledged');
    expect(emits).toHaveLength(1);
  });

  test('an execution lost with its worker fails (for core to hand it over again) only with Re-Run on', async () => {
    const { outcome } = host();
    const on = outcome(true);
    on.done.resolve(lostRun);
    expect(await on.settled).toBe('failed: n8n lost the execution with its queue-mode worker');
    const off = outcome(false);
    off.done.resolve(lostRun);
    expect(await off.settled).toBe('acknowledged');
  });

  test('an execution n8n could not start fails with n8n’s reason', async () => {
    const { outcome } = host();
    const start = outcome(false);
    start.done.reject(new Error('timeout exceeded when trying to connect'));
    expect(await start.settled).toBe(
      'failed: n8n could not start the execution: timeout exceeded when trying to connect',
    );
  });
});

describe('executionKey', () => {
  test('the first attempt has the plain key; each later one its own, so n8n starts it', () => {
    expect(executionKey('observation:w1:n1', '4711', 1)).toBe('observation:w1:n1:4711');
    expect(executionKey('observation:w1:n1', '4711', 2)).toBe('observation:w1:n1:4711:attempt2');
    expect(executionKey('observation:w1:n1', 'h3f2a', 4)).toBe('observation:w1:n1:h3f2a:attempt4');
  });
});
