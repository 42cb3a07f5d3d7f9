// One login for the whole cluster: with email and password, n8n keeps the token with the
// credential in the shared database, so the main (whose Observation Trigger logged in when it
// was activated) and both workers use that one token. A webhook workflow runs the Observation
// node on the workers (queue mode hands every production execution to a worker); the simulator
// counts the logins.
import { executionsFinishedBy } from './n8n-cluster.mjs';
import { readExecutions } from './records.mjs';

export const sharedLoginWorkflowId = 'obsQueueLogin01';
const path = 'observation-shared-login';

export function sharedLoginWorkflow(credential) {
  return {
    id: sharedLoginWorkflowId,
    name: 'Observation: one login for main and workers',
    active: false,
    settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
    nodes: [
      {
        id: '5c0e1000-0000-4000-8000-000000000001',
        name: 'Webhook',
        type: 'n8n-nodes-base.webhook',
        typeVersion: 2,
        position: [0, 0],
        webhookId: '5c0e1000-0000-4000-8000-0000000000aa',
        parameters: { httpMethod: 'GET', path, responseMode: 'lastNode', options: {} },
      },
      {
        id: '5c0e1000-0000-4000-8000-000000000002',
        name: 'Read Tasks',
        type: '@observation-service/n8n-nodes-observation.observation',
        typeVersion: 1,
        position: [240, 0],
        parameters: { resource: 'task', operation: 'getMany', returnAll: false, limit: 2 },
        credentials: { observationApi: { id: credential.id, name: credential.name } },
      },
    ],
    connections: { Webhook: { main: [[{ node: 'Read Tasks', type: 'main', index: 0 }]] } },
  };
}

/**
 * Calls the webhook `count` times at once and checks who ran the executions and how often the
 * cluster logged in since it started (the simulator started with it).
 */
export async function checkSharedLogin({ sim, main, workers, postgres, check, count = 20 }) {
  const finishedBefore = workers.map((worker) => executionsFinishedBy(worker));
  const answers = await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await fetch(`http://127.0.0.1:${main.port}/webhook/${path}`);
      return { status: response.status, body: await response.text() };
    }),
  );
  const executions = readExecutions(postgres, sharedLoginWorkflowId);
  const byWorker = workers.map((worker, index) => {
    const before = finishedBefore[index] ?? new Set();
    const finished = executionsFinishedBy(worker);
    return executions.filter((e) => finished.has(e.id) && !before.has(e.id)).length;
  });
  const logins = sim.control.stats().logins;
  check(
    `one login for main and workers: ${count} executions of the Observation node (${byWorker.join(' + ')} on the two workers) read the token the main's trigger had stored with the credential; logins since the cluster started: ${logins}`,
    answers.every((answer) => answer.status === 200 && answer.body.includes('"status"')) &&
      executions.length === count &&
      executions.every((e) => e.status === 'success') &&
      byWorker.every((n) => n > 0) &&
      byWorker.reduce((a, b) => a + b, 0) === count &&
      logins === 1,
    JSON.stringify({
      answers: answers.slice(0, 2),
      executions: executions.slice(0, 3),
      byWorker,
      logins,
    }).slice(0, 800),
  );
  return { byWorker, logins };
}
