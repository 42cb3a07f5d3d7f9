// The polling Task Trigger across a restart of n8n, and the credential in n8n's HTTP Request
// node: one workflow. The trigger (version 2) watches one task; the HTTP Request node reads
// /tasks with the Observation API credential as a predefined credential type. n8n polls when it
// activates the workflow: the first start records the statuses, a task fails while n8n is
// stopped, the next start must report it (and run the HTTP Request node in that execution).
import { parseFlatted } from './execution-data.mjs';
import { workflowExecutions } from './n8n-server.mjs';

export const outageWorkflowId = 'obsTaskOutage01';

export function taskOutageWorkflow(sim, credential, taskId) {
  const credentials = { observationApi: { id: credential.id, name: credential.name } };
  return {
    id: outageWorkflowId,
    name: 'Observation: task outage across a restart',
    active: false,
    settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
    nodes: [
      {
        id: '7a5c0000-0000-4000-8000-000000000001',
        name: 'Observation Task Trigger',
        type: '@observation-service/n8n-nodes-observation.observationTaskTrigger',
        typeVersion: 2,
        position: [0, 0],
        parameters: {
          pollTimes: { item: [{ mode: 'everyHour' }] },
          tasks: 'ids',
          taskIds: String(taskId),
          changes: ['changed'],
          filters: {},
        },
        credentials,
      },
      {
        id: '7a5c0000-0000-4000-8000-000000000002',
        name: 'Read Tasks',
        type: 'n8n-nodes-base.httpRequest',
        typeVersion: 4.2,
        position: [240, 0],
        parameters: {
          url: `${sim.apiUrl}/tasks`,
          authentication: 'predefinedCredentialType',
          nodeCredentialType: 'observationApi',
          sendQuery: true,
          queryParameters: { parameters: [{ name: 'limit', value: '3' }] },
          options: {},
        },
        credentials,
      },
    ],
    connections: {
      'Observation Task Trigger': { main: [[{ node: 'Read Tasks', type: 'main', index: 0 }]] },
    },
  };
}

/** The workflow's static data as n8n saved it (the trigger's recorded statuses live there). */
export async function savedStaticData(request, base) {
  const response = await request.get(`${base}/rest/workflows/${outageWorkflowId}`);
  return response.ok() ? (await response.json())?.data?.staticData : undefined;
}

/**
 * The executions of the workflow so far, newest first (id, status, mode); none when the request
 * fails on the way (an idle keep-alive socket n8n closed as it went out): callers poll.
 */
export async function outageExecutions(request, base) {
  return (await workflowExecutions(request, base, outageWorkflowId)) ?? [];
}

/** Both nodes' output items of one execution, from its run data. */
export async function outageRun(request, base, executionId) {
  const response = await request.get(`${base}/rest/executions/${executionId}`);
  if (!response.ok()) throw new Error(`GET /rest/executions/${executionId}: HTTP ${response.status()}`);
  const run = parseFlatted((await response.json())?.data?.data ?? 'null');
  const items = (node) =>
    run?.resultData?.runData?.[node]?.[0]?.data?.main?.[0]?.map((item) => item.json) ?? [];
  return { trigger: items('Observation Task Trigger'), tasks: items('Read Tasks') };
}

/**
 * The status the trigger recorded for one task in the saved static data: core's task watch
 * format keeps every task of the service in `tasks` (so a later change of selection adds none).
 */
export function recordedStatus(staticData, taskId) {
  const node = staticData?.['node:Observation Task Trigger'];
  return node?.taskWatch?.tasks?.find((task) => task.id === taskId)?.status;
}
