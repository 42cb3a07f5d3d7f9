import type { ObservationClient } from '@observation-service/core/portable';
import {
  type IDataObject,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeBaseDescription,
  type INodeTypeDescription,
  type IPollFunctions,
  NodeConnectionTypes,
  NodeOperationError,
} from 'n8n-workflow';
import { getTasks } from '../../../shared/list-search';
import { toNodeError } from '../../../shared/node-error';
import { withClient } from '../../../shared/open-client';
import { taskSelectionProperties } from '../../../shared/task-selection';
import { readTriggerParameters } from '../../../shared/trigger-lifecycle';
import {
  readTaskChangeSettings,
  taskChangeProperties,
  taskEventToJson,
  wanted,
} from '../task-trigger-parameters';
import { testRunItems } from '../test-run-items';

/**
 * Version 2, an n8n polling trigger: n8n calls `poll()` at the Poll Times; the statuses seen last
 * are kept in the workflow's static data (`taskWatch`), which n8n saves with the workflow, so a
 * change that happened while n8n was stopped (or the workflow inactive) is reported at the first
 * poll after it starts again: n8n polls once when it activates the workflow.
 */
export class ObservationTaskTriggerV2 implements INodeType {
  description: INodeTypeDescription;

  constructor(baseDescription: INodeTypeBaseDescription) {
    this.description = {
      ...baseDescription,
      version: 2,
      subtitle: '={{ "On " + ($parameter["changes"] || []).join(", ") }}',
      polling: true,
      activationMessage:
        'Status changes of the selected tasks will now start this workflow, checked at the Poll Times.',
      defaults: { name: 'Observation Task Trigger' },
      inputs: [],
      outputs: [NodeConnectionTypes.Main],
      credentials: [{ name: 'observationApi', required: true }],
      properties: [
        {
          displayName:
            'Checks the task list at the Poll Times and reports what changed since the last check, also while n8n was stopped. "Fetch Test Event" shows the selected tasks whose current status passes the filters, or one sample change when none does.',
          name: 'notice',
          type: 'notice',
          default: '',
        },
        ...taskSelectionProperties,
        ...taskChangeProperties,
      ],
    };
  }

  methods = {
    loadOptions: { getTasks },
  };

  async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
    const settings = readTriggerParameters(this, readTaskChangeSettings);
    const read = async <T>(work: (client: ObservationClient) => Promise<T>): Promise<T> => {
      try {
        return await withClient(this, work);
      } catch (error) {
        throw toNodeError(this.getNode(), error);
      }
    };

    if (this.getMode() === 'manual') {
      // "Fetch Test Event": what the settings ask for among the current statuses, or one sample
      // change (see test-run-items.ts); nothing stored.
      const items = testRunItems(settings, await read((client) => client.tasks.statuses()));
      if (items.length === 0) {
        throw new NodeOperationError(this.getNode(), 'None of the selected tasks exists on the service', {
          description: 'Check the task selection; in production the trigger would wait for them to be added.',
        });
      }
      return [items.map((json) => ({ json }))];
    }

    // What changed since the state kept in static data (core's task watch format; every task is
    // kept, so changing the selection later reports no task as added).
    const memory = this.getWorkflowStaticData('node');
    const { events, state, baseline, problem, note } = await read((client) =>
      client.tasks.changes(memory.taskWatch),
    );
    memory.taskWatch = state as unknown as IDataObject;
    // Core says which is a warning: a state it could not read is; one of another service (the
    // credential changed) is what a new trigger does.
    if (problem) this.logger.warn(`Observation Task Trigger: ${problem}; starting from the current statuses`);
    if (note) this.logger.info(`Observation Task Trigger: ${note}; starting from the current statuses`);
    if (baseline) {
      this.logger.info(
        'Observation Task Trigger: recorded the current task statuses; changes from now on start the workflow',
      );
    }
    const items = events
      .filter((event) => wanted(settings, event))
      .map((event) => ({ json: taskEventToJson(event) }));
    return items.length > 0 ? [items] : null;
  }
}
