import {
  AuthError,
  HttpError,
  type TaskWatch,
  type TaskWatchEvent,
} from '@observation-service/core/portable';
import {
  type INodeType,
  type INodeTypeBaseDescription,
  type INodeTypeDescription,
  type ITriggerFunctions,
  type ITriggerResponse,
  NodeConnectionTypes,
  NodeOperationError,
} from 'n8n-workflow';
import { getTasks } from '../../../shared/list-search';
import { toNodeError } from '../../../shared/node-error';
import { openClient } from '../../../shared/open-client';
import { taskSelectionProperties } from '../../../shared/task-selection';
import { closeOnce, readTriggerParameters } from '../../../shared/trigger-lifecycle';
import {
  maxPollSeconds,
  minPollSeconds,
  readTaskTriggerSettings,
  taskChangeProperties,
  taskEventToJson,
  wanted,
} from '../task-trigger-parameters';
import { testRunItems } from '../test-run-items';

/** Refused credentials do not heal by polling again: n8n should show it on the workflow. */
function isRefused(error: Error): boolean {
  return AuthError.isInstance(error) || (HttpError.isInstance(error) && [401, 403].includes(error.status));
}

/**
 * Version 1: its own poll loop (core's task watch) while the workflow is active, statuses in
 * memory. Kept unchanged for workflows saved with it; version 2 is n8n's polling trigger.
 */
export class ObservationTaskTriggerV1 implements INodeType {
  description: INodeTypeDescription;

  constructor(baseDescription: INodeTypeBaseDescription) {
    this.description = {
      ...baseDescription,
      version: 1,
      subtitle: '={{ "Every " + $parameter["pollIntervalSeconds"] + " s" }}',
      eventTriggerDescription: 'Waiting for a task status to change',
      activationMessage: 'Status changes of the selected tasks will now start this workflow.',
      defaults: { name: 'Observation Task Trigger' },
      inputs: [],
      outputs: [NodeConnectionTypes.Main],
      credentials: [{ name: 'observationApi', required: true }],
      properties: [
        {
          displayName:
            'Checks the tasks every poll interval; "Test this trigger" shows the current status of the selected tasks',
          name: 'notice',
          type: 'notice',
          default: '',
        },
        {
          displayName: 'Poll Interval (Seconds)',
          name: 'pollIntervalSeconds',
          type: 'number',
          default: 60,
          required: true,
          typeOptions: { minValue: minPollSeconds, maxValue: maxPollSeconds },
          description: 'Time between two checks of the task list',
          hint: `From ${minPollSeconds} s to ${maxPollSeconds} s (one day). A status that changes and changes back between two checks is not seen.`,
        },
        ...taskSelectionProperties,
        ...taskChangeProperties,
      ],
    };
  }

  methods = {
    loadOptions: { getTasks },
  };

  async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
    const settings = readTriggerParameters(this, readTaskTriggerSettings);
    const client = await openClient(this);
    let watch: TaskWatch | undefined;
    const closer = closeOnce(async () => {
      await watch?.close();
      await client.close();
    });
    const closeFunction = closer.close;

    if (this.getMode() === 'manual') {
      // "Test this trigger": one check, then one item per selected task with its current
      // status (type `initial`), so the output's shape shows at once instead of after a change.
      const manualTriggerFunction = async (): Promise<void> => {
        try {
          const current: TaskWatchEvent[] = [];
          let failure: Error | undefined;
          watch = client.tasks.watch(
            { intervalMs: settings.intervalMs, taskIds: settings.taskIds, emitInitial: true },
            {
              onChange: (event) => {
                current.push(event);
              },
              onError: (error) => {
                failure ??= error;
              },
            },
          );
          await watch.poll();
          if (closer.started) return; // the user stopped listening meanwhile
          if (failure) throw toNodeError(this.getNode(), failure);
          const items = testRunItems(settings, current);
          if (items.length === 0) {
            throw new NodeOperationError(this.getNode(), 'None of the selected tasks exists on the service', {
              description:
                'Check the task selection; in production the trigger would wait for them to be added.',
            });
          }
          this.emit([items.map((json) => ({ json }))]);
        } finally {
          await closeFunction();
        }
      };
      return { manualTriggerFunction, closeFunction };
    }

    try {
      watch = client.tasks.watch(
        { intervalMs: settings.intervalMs, taskIds: settings.taskIds },
        {
          onChange: (event) => {
            // One execution per change, like n8n's own event triggers.
            if (wanted(settings, event)) this.emit([[{ json: taskEventToJson(event) }]]);
          },
          onError: (error) => {
            if (isRefused(error)) {
              this.emitError(toNodeError(this.getNode(), error));
            } else {
              // Core polls again after the interval; the log says why a check failed.
              this.logger.warn(`Observation Task Trigger: check of the tasks failed: ${error.message}`);
            }
          },
        },
      );
    } catch (error) {
      await client.close();
      throw toNodeError(this.getNode(), error);
    }
    return { closeFunction };
  }
}
