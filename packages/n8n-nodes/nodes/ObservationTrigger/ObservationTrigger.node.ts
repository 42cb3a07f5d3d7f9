import {
  type INodeType,
  type INodeTypeDescription,
  type ITriggerFunctions,
  type ITriggerResponse,
  NodeConnectionTypes,
} from 'n8n-workflow';
import { getEventNames, getTasks } from '../../shared/list-search';
import { openRealtimeClient } from '../../shared/open-client';
import { taskSelectionProperties } from '../../shared/task-selection';
import { closeOnce, readTriggerParameters } from '../../shared/trigger-lifecycle';
import { cooldownProperties, runAgainProperty } from './alert-options';
import { batchExecutions } from './batch-executions';
import { staticDataUsers, staticDataWarning } from './static-data-users';
import { emitTestEvent } from './trigger-items';
import { triggerLog } from './trigger-log';
import {
  defaultMaxUnfinished,
  maxBatchSize,
  maxBatchWaitMs,
  maxCatchUpMinutes,
  maxLatenessSeconds,
  maxSnapshotWaitSeconds,
  maxUnfinishedLimit,
  readTriggerSettings,
  restartedByN8n,
  resumes,
  staticDataPositionStore,
  subscribeOptions,
} from './trigger-parameters';

export class ObservationTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Observation Trigger',
    name: 'observationTrigger',
    icon: { light: 'file:../../icons/observation.svg', dark: 'file:../../icons/observation.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle: '={{ $parameter["tasks"] === "all" ? "All tasks" : "Selected tasks" }}',
    // n8n's node picker shows this on the one "Observation" entry it merges the action node and
    // this trigger into: it has to describe both.
    description:
      'AI camera events of the Observation Service: start a workflow on each new event (realtime, with catch-up), or read events, tasks, locations and media',
    eventTriggerDescription: 'Waiting for an event from the Observation Service',
    activationMessage: 'Events detected by the selected tasks will now start this workflow.',
    documentationUrl:
      'https://github.com/observation-service/observation-service-integrations/tree/main/packages/n8n-nodes#observation-trigger',
    defaults: { name: 'Observation Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'observationApi', required: true }],
    properties: [
      ...taskSelectionProperties,
      {
        displayName: 'Filters',
        name: 'filters',
        type: 'collection',
        placeholder: 'Add Filter',
        default: {},
        options: [
          {
            displayName: 'Event Names or IDs',
            name: 'eventNames',
            type: 'multiOptions',
            typeOptions: { loadOptionsMethod: 'getEventNames' },
            default: [],
            description:
              'Only these kinds of events. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
          },
          {
            displayName: 'Minimum Confidence',
            name: 'minConfidence',
            type: 'number',
            default: 0.5,
            typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
            description: 'Only events with at least one detected object at or above this confidence (0 to 1)',
          },
          {
            displayName: 'Object Names',
            name: 'objectNames',
            type: 'string',
            default: '',
            placeholder: 'e.g. person, car',
            description: 'Only events that detected one of these objects (comma-separated)',
          },
          {
            displayName: 'Warnings Only',
            name: 'warningsOnly',
            type: 'boolean',
            default: false,
            description: 'Whether to only pass events with an object in warning state',
          },
        ],
      },
      {
        displayName: 'Options',
        name: 'options',
        type: 'collection',
        placeholder: 'Add Option',
        default: {},
        options: [
          {
            displayName: 'Attach Snapshot',
            name: 'attachSnapshot',
            type: 'boolean',
            default: false,
            description:
              'Whether to download the snapshot image and add it to the item as binary data. Services write a snapshot a few seconds after they publish the event: the trigger waits for it (Snapshot Wait), downloading several side by side while executions keep the event order. An item whose snapshot did not come has `missingImages: ["snapshot"]` and `snapshotError`.',
          },
          {
            displayName: 'Batch Size',
            name: 'batchSize',
            type: 'number',
            default: 1,
            typeOptions: { minValue: 1, maxValue: maxBatchSize },
            description:
              'Events per execution. 1 starts one execution per event; more starts one execution with up to this many items, in event order (fewer executions under a busy stream).',
          },
          {
            displayName: 'Batch Wait (Milliseconds)',
            name: 'batchWaitMs',
            type: 'number',
            default: 1000,
            typeOptions: { minValue: 1, maxValue: maxBatchWaitMs },
            displayOptions: { hide: { batchSize: [1] } },
            description:
              'How long a batch waits for more events after its first one: it starts when it is full or when this time is up, whichever comes first',
          },
          {
            displayName: 'Catch Up on Missed Events',
            name: 'catchUp',
            type: 'boolean',
            default: false,
            description:
              'Whether to also fetch, when you activate or update the workflow, the events that happened while it was inactive (from history, after the last event this trigger handled). When n8n itself restarts or a new leader takes over, the trigger always resumes where it stopped.',
          },
          ...cooldownProperties,
          {
            displayName: 'Late Events (Seconds)',
            name: 'allowedLatenessSeconds',
            type: 'number',
            default: 120,
            typeOptions: { minValue: 0, maxValue: maxLatenessSeconds },
            description:
              'Events the service publishes up to this long after they happened (e.g. answers of a vision-language model) are still delivered exactly once after a reconnect or restart. Higher means a longer catch-up after each reconnect.',
          },
          {
            displayName: 'Max Catch-Up (Minutes)',
            name: 'maxLookBackMinutes',
            type: 'number',
            default: 60,
            typeOptions: { minValue: 1, maxValue: maxCatchUpMinutes },
            displayOptions: { show: { catchUp: [true] } },
            description: 'Never fetch events older than this, however long the workflow was inactive',
          },
          {
            displayName: 'Max Unfinished Executions',
            name: 'maxUnfinished',
            type: 'number',
            default: defaultMaxUnfinished,
            typeOptions: { minValue: 1, maxValue: maxUnfinishedLimit },
            description:
              'How many executions of this trigger may be queued or running at once. Beyond that the trigger waits (the service keeps the events meanwhile) instead of piling executions onto n8n.',
          },
          {
            displayName: 'Put Snapshot in Field',
            name: 'binaryPropertyName',
            type: 'string',
            default: 'data',
            displayOptions: { show: { attachSnapshot: [true] } },
            hint: 'The name of the output binary field to put the snapshot in',
          },
          {
            displayName: 'Re-Run Executions Lost with a Worker',
            name: 'rerunLostExecutions',
            type: 'boolean',
            default: false,
            description:
              'Whether to start an execution again when n8n (queue mode) failed it because its worker died: n8n does not retry such executions and drops their data. The events then get a successful execution, but nodes the lost worker already ran run again.',
          },
          runAgainProperty,
          {
            displayName: 'Snapshot Wait (Seconds)',
            name: 'snapshotWaitSeconds',
            type: 'number',
            default: 10,
            typeOptions: { minValue: 0, maxValue: maxSnapshotWaitSeconds },
            displayOptions: { show: { attachSnapshot: [true] } },
            description:
              "How long a new event's snapshot may take to appear on the service before the event starts the workflow without it. An older event's snapshot is not waited for.",
          },
          {
            displayName: 'Unfinished Executions After a Restart',
            name: 'afterRestart',
            type: 'options',
            default: 'runAgain',
            options: [
              {
                name: 'Run Their Events Again (At Least Once)',
                value: 'runAgain',
                description:
                  'After n8n is killed or restarts, or another main takes over, events whose execution n8n did not finish start a new execution by themselves. n8n still lists the cut-off execution as Error ("possible out-of-memory issue"): a Retry of it runs its events a second time. An execution that did its work but was not recorded finished before the stop runs again.',
              },
              {
                name: 'Leave Them for Retry (Exactly Once)',
                value: 'retryByHand',
                description:
                  'No event ever starts a second execution: events whose execution n8n did not finish wait in the Executions list (listed as Error) until someone presses Retry',
              },
            ],
            description:
              'What happens to events whose execution n8n did not finish because n8n stopped (killed, out of memory, upgraded) or another main took over',
          },
        ],
      },
    ],
  };

  methods = {
    loadOptions: { getEventNames, getTasks },
  };

  async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
    const settings = readTriggerParameters(this, readTriggerSettings);
    const client = await openRealtimeClient(this);
    const stop = new AbortController();
    // Closing the client closes its subscription too (saving the position a last time).
    const closer = closeOnce(async () => {
      stop.abort();
      await client.close();
    });
    const log = triggerLog(this);

    if (this.getMode() === 'manual') {
      // "Listen for test event": one event, then the listening ends.
      const manualTriggerFunction = async (): Promise<void> => {
        try {
          await emitTestEvent(this, client, settings, stop.signal, log.onError);
        } finally {
          await closer.close();
        }
      };
      return { manualTriggerFunction, closeFunction: closer.close };
    }

    const staticData = this.getWorkflowStaticData('node');
    // Said once per activation, in n8n's log: what later nodes keep in static data does not last.
    const users = staticDataUsers(this);
    if (users.length > 0) this.logger.warn(staticDataWarning(users));
    const store = staticDataPositionStore(staticData);
    const resume = resumes(this.getActivationMode(), settings);
    const onBatch = batchExecutions(this, settings, stop.signal);
    client.events.subscribe(
      settings.selection,
      {
        onBatch,
        onStatus: log.onStatus,
        onError: log.onError,
        onOutage: log.onOutage,
        onRecovered: log.onRecovered,
      },
      subscribeOptions(settings, {
        store,
        resume,
        restarted: restartedByN8n(this.getActivationMode()),
        storeShared: users.length > 0,
      }),
    );
    // A batch still filling or being prepared when n8n deactivates is dropped, not emitted: its
    // events stay outside the saved position and are read again on the next resumed start.
    return { closeFunction: closer.close };
  }
}
