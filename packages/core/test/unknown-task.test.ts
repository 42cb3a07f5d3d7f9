import { describe, expect, it } from 'vitest';
import { client, optionsFor, simulator, waiter } from './helpers.js';

const until = waiter(20_000);

describe('a task id the service does not have', () => {
  it('is reported once (TASK_NOT_FOUND, naming it); the other tasks are followed', async () => {
    const sim = await simulator({ historySize: 0 });
    const [task] = sim.world.tasks;
    const errors: Array<{ code?: string; message: string }> = [];
    const received: number[] = [];
    const sub = client(optionsFor(sim, { form: 'extended' })).events.subscribe(
      [task?.id as number, 987_654],
      {
        onEvent: (event) => void received.push(event.id as number),
        onError: (error) => void errors.push(error),
      },
    );
    await until(() => sub.state === 'open', 'open');
    const [live] = await sim.control.emit(1, { taskIds: [task?.id as number], latenessMs: 0 });
    await until(() => received.includes(live?.id as number), 'the event of the real task');
    await until(() => errors.length > 0, 'the report');
    expect(errors.map((error) => error.code)).toEqual(['TASK_NOT_FOUND']);
    expect(errors[0]?.message).toContain('task 987654');
    expect(errors[0]?.message).not.toContain(`task ${task?.id}`);
    await sub.close();
  });
});
