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
  const emits: Array<{ key: string | undefined; done: { resolve: (run: IRun) => void } }> = [];
  const context = {
    emit: (_items: unknown, _response: unknown, done: { resolve: (run: IRun) => void }, key?: string) =>
      emits.push({ key, done }),
    logger: { warn: () => {} },
  } as unknown as ITriggerFunctions;
  const saved: string[] = [];
  const store: PositionStore = { load: () => undefined, save: (p) => void saved.push(p.savedAt) };
  const position = new ConfirmedPositionStore(store);
  return { context, emits, saved, position };
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
});
