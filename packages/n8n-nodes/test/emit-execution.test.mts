import type { IRun, ITriggerFunctions } from 'n8n-workflow';
import { describe, expect, test } from 'vitest';
import { emitExecution, lostWithWorker, maxReruns } from '../nodes/ObservationTrigger/emit-execution';

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
 * here each outcome is played exactly. `acknowledged` says when the emit's promise resolved.
 */
function host() {
  type Done = { resolve: (run: IRun) => void; reject: (error: Error) => void };
  const emits: Array<{ key: string | undefined; done: Done }> = [];
  const errors: string[] = [];
  const context = {
    emit: (_items: unknown, _response: unknown, done: Done, key?: string) => emits.push({ key, done }),
    logger: { warn: () => {}, error: (message: string) => void errors.push(message) },
  } as unknown as ITriggerFunctions;
  const acknowledged: string[] = [];
  const emit = (id: number, key: string, rerun: boolean) =>
    emitExecution(context, [{ json: { id } }], key, { rerunLost: rerun }).then(
      () => void acknowledged.push(key),
    );
  return { emits, acknowledged, emit, errors, context };
}
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('lostWithWorker', () => {
  test('recognizes only n8n’s "worker lost" failure', () => {
    expect(lostWithWorker(lostRun)).toBe(true);
    expect(lostWithWorker(successRun)).toBe(false);
    expect(lostWithWorker(failedRun)).toBe(false);
    expect(lostWithWorker(undefined)).toBe(false);
  });
});

describe('emitExecution', () => {
  test('with rerun on, a lost execution is emitted again under a new key; acknowledged after the rerun', async () => {
    const { emits, acknowledged, emit } = host();
    const done = emit(7, 'k:7', true);
    expect(emits.map((e) => e.key)).toEqual(['k:7']);
    emits[0]?.done.resolve(lostRun);
    await tick();
    expect(emits.map((e) => e.key)).toEqual(['k:7', 'k:7:rerun1']);
    expect(acknowledged).toEqual([]);
    emits[1]?.done.resolve(successRun);
    await done;
    expect(acknowledged).toEqual(['k:7']);
  });

  test(`gives up after ${maxReruns} reruns; with rerun off, nothing is emitted again`, async () => {
    const on = host();
    void on.emit(1, 'k', true);
    for (let index = 0; index <= maxReruns; index++) {
      on.emits[index]?.done.resolve(lostRun);
      await tick();
    }
    expect(on.emits).toHaveLength(maxReruns + 1);
    const off = host();
    void off.emit(1, 'k', false);
    off.emits[0]?.done.resolve(lostRun);
    await tick();
    expect(off.emits).toHaveLength(1);
  });

  test('an execution that failed in a node is not emitted again', async () => {
    const { emits, acknowledged, emit } = host();
    const done = emit(1, 'k', true);
    emits[0]?.done.resolve(failedRun);
    await done;
    expect(emits).toHaveLength(1);
    expect(acknowledged).toEqual(['k']);
  });

  test('an execution n8n could not start is started again under the same key, then reported', async () => {
    const { emits, acknowledged, emit, errors } = host();
    const done = emit(9, 'k:9', false);
    emits[0]?.done.reject(new Error('timeout exceeded when trying to connect'));
    await tick();
    // Same key: had n8n recorded it after all, it would refuse the repeat.
    expect(emits.map((e) => e.key)).toEqual(['k:9', 'k:9']);
    expect(acknowledged).toEqual([]);
    for (let index = 1; index <= maxReruns; index++) {
      emits[index]?.done.reject(new Error('timeout exceeded when trying to connect'));
      await tick();
    }
    expect(emits).toHaveLength(maxReruns + 1);
    await done;
    expect(acknowledged).toEqual(['k:9']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/could not start an execution of 1 event\(s\) after 4 tries.*event ids: 9/);
  });

  test('a key n8n refused: started again under the key againKey gives, or acknowledged when it gives none', async () => {
    const { emits, context } = host();
    const starting: string[] = [];
    const done = emitExecution(context, [{ json: { id: 4 } }], 'k:4', {
      rerunLost: false,
      starting: (key) => void starting.push(key),
      againKey: (key) => (key === 'k:4' ? 'k:4:again1' : undefined),
    });
    // n8n 2.41 resolves the done promise with no run when it refused the key.
    emits[0]?.done.resolve(undefined as never);
    await tick();
    expect(emits.map((e) => e.key)).toEqual(['k:4', 'k:4:again1']);
    expect(starting).toEqual(['k:4', 'k:4:again1']);
    emits[1]?.done.resolve(undefined as never);
    await done;
    expect(emits).toHaveLength(2);
  });

  test('once the trigger is closed, nothing is emitted and the events are never acknowledged', async () => {
    const { emits, acknowledged, context } = host();
    const stop = new AbortController();
    let settled = false;
    void emitExecution(context, [{ json: { id: 5 } }], 'k:5', {
      rerunLost: false,
      againKey: () => 'k:5:again1',
      signal: stop.signal,
    }).then(() => {
      settled = true;
    });
    stop.abort();
    emits[0]?.done.resolve(undefined as never);
    await tick();
    expect(emits).toHaveLength(1);
    expect(settled).toBe(false);
    expect(acknowledged).toEqual([]);
  });
});
