import type { PositionStore } from '@observation-service/core/portable';
import type { IRun, ITriggerFunctions } from 'n8n-workflow';
import { describe, expect, test } from 'vitest';
import { ConfirmedPositionStore } from '../nodes/ObservationTrigger/confirmed-position';
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

/** Records emits as n8n's main receives them; the test settles each one like n8n would. */
function host() {
  type Done = { resolve: (run: IRun) => void; reject: (error: Error) => void };
  const emits: Array<{ key: string | undefined; done: Done }> = [];
  const errors: string[] = [];
  const context = {
    emit: (_items: unknown, _response: unknown, done: Done, key?: string) => emits.push({ key, done }),
    logger: { warn: () => {}, error: (message: string) => void errors.push(message) },
  } as unknown as ITriggerFunctions;
  const saved: string[] = [];
  const store: PositionStore = { load: () => undefined, save: (p) => void saved.push(p.savedAt) };
  const position = new ConfirmedPositionStore(store);
  return { context, emits, saved, position, errors };
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
  test('with rerun on, a lost execution is emitted again under a new key; the position waits for the rerun', async () => {
    const { context, emits, saved, position } = host();
    emitExecution(context, position, [{ json: { id: 7 } }], 'k:7', true);
    const save = position.save({ savedAt: 'after-7' } as never);
    expect(emits.map((e) => e.key)).toEqual(['k:7']);
    emits[0]?.done.resolve(lostRun);
    await tick();
    expect(emits.map((e) => e.key)).toEqual(['k:7', 'k:7:rerun1']);
    expect(saved).toEqual([]);
    emits[1]?.done.resolve(successRun);
    await save;
    expect(saved).toEqual(['after-7']);
  });

  test(`gives up after ${maxReruns} reruns; with rerun off, nothing is emitted again`, async () => {
    const on = host();
    emitExecution(on.context, on.position, [{ json: { id: 1 } }], 'k', true);
    for (let index = 0; index <= maxReruns; index++) {
      on.emits[index]?.done.resolve(lostRun);
      await tick();
    }
    expect(on.emits).toHaveLength(maxReruns + 1);
    const off = host();
    emitExecution(off.context, off.position, [{ json: { id: 1 } }], 'k', false);
    off.emits[0]?.done.resolve(lostRun);
    await tick();
    expect(off.emits).toHaveLength(1);
  });

  test('an execution that failed in a node is not emitted again', async () => {
    const { context, emits, position } = host();
    emitExecution(context, position, [{ json: { id: 1 } }], 'k', true);
    emits[0]?.done.resolve(failedRun);
    await tick();
    expect(emits).toHaveLength(1);
  });

  test('an execution n8n could not start is started again under the same key, then reported', async () => {
    const { context, emits, saved, position, errors } = host();
    emitExecution(context, position, [{ json: { id: 9 } }], 'k:9', false);
    const save = position.save({ savedAt: 'after-9' } as never);
    emits[0]?.done.reject(new Error('timeout exceeded when trying to connect'));
    await tick();
    // Same key: had n8n recorded it after all, it would refuse the repeat.
    expect(emits.map((e) => e.key)).toEqual(['k:9', 'k:9']);
    expect(saved).toEqual([]);
    for (let index = 1; index <= maxReruns; index++) {
      emits[index]?.done.reject(new Error('timeout exceeded when trying to connect'));
      await tick();
    }
    expect(emits).toHaveLength(maxReruns + 1);
    await save;
    expect(saved).toEqual(['after-9']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/could not start an execution of 1 event\(s\) after 4 tries.*event ids: 9/);
  });
});
