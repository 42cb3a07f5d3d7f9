// n8n's own records of the queue-mode run, read from PostgreSQL: every execution of the workflow
// with its status, timestamps and the event ids its trigger item carried (from the execution's
// run data, which n8n stores as `flatted` JSON).
import { parseFlatted } from '../execution-data.mjs';

/** Counts of the workflow's executions by status (cheap: no execution data). */
export function executionCounts(postgres, workflowId) {
  const result = postgres.psql(
    `SELECT status, count(*) FROM execution_entity WHERE "workflowId" = '${workflowId}' GROUP BY status`,
  );
  if (result.status !== 0) return {};
  return Object.fromEntries(result.rows.map(([status, count]) => [status, Number(count)]));
}

/**
 * Every execution of the workflow: id, status, mode, createdAt / startedAt / stoppedAt (epoch
 * ms) and `eventIds`, the record ids of the items the trigger emitted into it.
 */
export function readExecutions(postgres, workflowId) {
  const result = postgres.psql(
    `SELECT e.id, e.status, e.mode,
       floor(extract(epoch FROM e."createdAt") * 1000),
       floor(extract(epoch FROM e."startedAt") * 1000),
       floor(extract(epoch FROM e."stoppedAt") * 1000),
       d.data
     FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id
     WHERE e."workflowId" = '${workflowId}' ORDER BY e.id`,
  );
  if (result.status !== 0) throw new Error(`reading executions failed: ${result.stderr}`);
  return result.rows.map(([id, status, mode, createdAt, startedAt, stoppedAt, data]) => ({
    id,
    status,
    mode,
    createdAt: Number(createdAt) || undefined,
    startedAt: Number(startedAt) || undefined,
    stoppedAt: Number(stoppedAt) || undefined,
    eventIds: eventIdsOf(data),
  }));
}

/** Record ids of the items the trigger emitted into this execution (whether or not it ran). */
export function eventIdsOf(data) {
  if (!data) return [];
  let run;
  try {
    run = parseFlatted(data);
  } catch {
    return [];
  }
  const ids = (items) => items.map((item) => item?.json?.id).filter((id) => Number.isInteger(id));
  const runs = run?.resultData?.runData?.['Observation Trigger'] ?? [];
  const ran = ids(runs.flatMap((entry) => entry?.data?.main?.[0] ?? []));
  if (ran.length > 0) return ran;
  // Not run (yet, or never: a worker died, n8n was killed): the trigger's items wait on the
  // execution stack. n8n's crash recovery may also have put an artificial item (no id) in the
  // trigger's run data from its event log: the emitted items are still on the stack.
  const start = (run?.executionData?.nodeExecutionStack ?? []).find(
    (entry) => entry?.node?.name === 'Observation Trigger',
  );
  return ids(start?.data?.main?.[0] ?? []);
}

/** The workflow's static data as n8n saved it in the database (the trigger's position lives there). */
export function savedStaticData(postgres, workflowId) {
  const result = postgres.psql(`SELECT "staticData" FROM workflow_entity WHERE id = '${workflowId}'`);
  const text = result.rows[0]?.[0];
  return text ? JSON.parse(text) : undefined;
}

/**
 * Executions created since `sinceMs` that core handed over again (their key ends in
 * :attempt<n>): after n8n lost one with a worker, or after a restart of the main.
 */
export function rerunExecutions(postgres, workflowId, sinceMs) {
  const result = postgres.psql(
    `SELECT id, status FROM execution_entity WHERE "workflowId" = '${workflowId}' AND "deduplicationKey" LIKE '%:attempt%' AND "createdAt" >= to_timestamp(${sinceMs / 1000})`,
  );
  return result.rows.map(([id, status]) => ({ id, status }));
}
