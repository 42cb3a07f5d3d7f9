// The queue-mode e2e's workflow and credential: the Observation Trigger on every task with
// catch-up on (its position lives in the workflow's static data), then an Edit Fields node that
// records the event's id, so the execution record shows each event went through the workflow.
import { simulatorCredential } from '../simulator-credential.mjs';

export const workflowId = 'obsQueueMode01';
const credentialId = 'obsQueueCred01';

/** The second workflow of phase B: Batch Size 100, on a simulator of its own. */
export const batchWorkflowId = 'obsQueueBatch01';
const batchCredentialId = 'obsQueueCred02';

export function credentialFor(sim) {
  return simulatorCredential(sim, credentialId);
}

export function batchCredentialFor(sim) {
  return simulatorCredential(sim, batchCredentialId);
}

/** The Batch Size 100 workflow: the same nodes, its own id and credential (its own simulator). */
export function batchWorkflow() {
  return {
    ...queueWorkflow({ batchSize: 100 }, batchCredentialId),
    id: batchWorkflowId,
    name: 'Observation: queue-mode e2e, Batch Size 100',
  };
}

/** `triggerOptions` are added to the trigger's Options (e.g. batching). */
export function queueWorkflow(triggerOptions = {}, credential = credentialId) {
  return {
    id: workflowId,
    name: 'Observation: queue-mode e2e',
    active: false,
    settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
    nodes: [
      {
        id: '5c0e0000-0000-4000-8000-000000000001',
        name: 'Observation Trigger',
        type: '@observation-service/n8n-nodes-observation.observationTrigger',
        typeVersion: 1,
        position: [0, 0],
        parameters: {
          tasks: 'all',
          // Re-run executions n8n failed because their worker died (phase C). Phase B checks
          // n8n's exactly-once path through a main kill: with the default "Run Their Events
          // Again", the executions still queued or running on the workers when the main died
          // finish there and run once more (the trigger cannot tell them from crashed ones).
          options: {
            catchUp: true,
            maxLookBackMinutes: 30,
            rerunLostExecutions: true,
            afterRestart: 'retryByHand',
            ...triggerOptions,
          },
        },
        credentials: { observationApi: { id: credential, name: 'Observation account' } },
      },
      {
        id: '5c0e0000-0000-4000-8000-000000000002',
        name: 'Record Event Id',
        type: 'n8n-nodes-base.set',
        typeVersion: 3.4,
        position: [240, 0],
        parameters: {
          assignments: {
            assignments: [{ id: 'r1', name: 'recordedEventId', type: 'number', value: '={{ $json.id }}' }],
          },
          includeOtherFields: false,
          options: {},
        },
      },
    ],
    connections: {
      'Observation Trigger': { main: [[{ node: 'Record Event Id', type: 'main', index: 0 }]] },
    },
  };
}
