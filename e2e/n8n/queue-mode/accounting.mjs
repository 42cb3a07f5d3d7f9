// What became of each event a phase published, from n8n's execution records. Three separate
// counts, never netted against each other:
//   ran      in exactly one successful execution (the goal);
//   crashed  in no successful execution, but in one n8n marked `crashed` (written, not yet queued
//            when main died: n8n's Retry runs it; n8n's loss, not the trigger's);
//   lost     in no execution at all: the trigger lost it. The gate is lost = 0.
// plus `duplicated` (in more than one successful execution) and `repeated` (in more than one
// execution of any status).

/**
 * @param {number} firstId @param {number} lastId
 * @param {Array<{ id: string, status: string, eventIds: number[] }>} executions
 */
export function accountEvents(firstId, lastId, executions) {
  const succeeded = new Map();
  const any = new Map();
  for (const execution of executions) {
    for (const id of execution.eventIds) {
      any.set(id, [...(any.get(id) ?? []), execution]);
      if (execution.status === 'success') succeeded.set(id, (succeeded.get(id) ?? 0) + 1);
    }
  }
  const result = {
    expected: lastId - firstId + 1,
    ran: 0,
    crashed: [],
    lost: [],
    unexecuted: [],
    duplicated: [],
    repeated: [],
  };
  for (let id = firstId; id <= lastId; id++) {
    const count = succeeded.get(id) ?? 0;
    const all = any.get(id) ?? [];
    if (count === 1) result.ran++;
    if (count > 1) result.duplicated.push(id);
    if (all.length > 1) result.repeated.push(id);
    if (count > 0) continue;
    if (all.length === 0) result.lost.push(id);
    else if (all.some((execution) => execution.status === 'crashed')) result.crashed.push(id);
    else result.unexecuted.push(`${id}:${all.map((e) => `${e.id}/${e.status}`).join('+')}`);
  }
  return result;
}

/**
 * The gate itself, checked against made-up records before the real run: a trigger that lost one
 * event must fail it, an event held in a crashed execution must be counted as crashed (not as
 * ran, not hidden), and a clean run must pass. A gate that cannot fail proves nothing.
 */
export function accountingSelfCheck() {
  const executions = [
    { id: '1', status: 'success', eventIds: [1, 2] },
    { id: '2', status: 'crashed', eventIds: [3] },
    // 4: the trigger lost it (no execution anywhere).
    { id: '3', status: 'success', eventIds: [5] },
  ];
  const withLoss = accountEvents(1, 5, executions);
  const clean = accountEvents(1, 2, executions);
  return (
    withLoss.lost.join() === '4' &&
    withLoss.crashed.join() === '3' &&
    withLoss.ran === 3 &&
    clean.lost.length === 0 &&
    clean.crashed.length === 0 &&
    clean.ran === 2
  );
}
