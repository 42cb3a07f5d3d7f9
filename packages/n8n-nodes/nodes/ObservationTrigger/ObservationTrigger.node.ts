import {
  matchesEventFilter,
  type ObservationClient,
  type ObservationEvent,
  type Subscription,
} from '@observation-service/core/portable';
import {
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
  type ITriggerFunctions,
  type ITriggerResponse,
  NodeConnectionTypes,
} from 'n8n-workflow';
import { observationApiTest } from '../../shared/credential-test';
import { eventToJson } from '../../shared/event-json';
import { getEventNames, getTasks } from '../../shared/list-search';
import { n8nClock } from '../../shared/n8n-clock';
import { toNodeError } from '../../shared/node-error';
import { openRealtimeClient } from '../../shared/open-client';
import { taskSelectionProperties } from '../../shared/task-selection';
import { closeOnce, readTriggerParameters } from '../../shared/trigger-lifecycle';
import { ConfirmedPositionStore } from './confirmed-position';
import { emitExecution } from './emit-execution';
import { EventBatcher } from './event-batcher';
import { executionKey } from './execution-key';
import {
  maxBatchSize,
  maxBatchWaitMs,
  maxCatchUpMinutes,
  maxLatenessSeconds,
  readTriggerSettings,
  staticDataPositionStore,
  subscribeOptions,
  type TriggerSettings,
} from './trigger-parameters';

/** Builds the output item; a failed snapshot download is reported on the item, never fatal. */
async function toItem(
  context: ITriggerFunctions,
  client: ObservationClient,
  settings: TriggerSettings,
  event: ObservationEvent,
): Promise<INodeExecutionData> {
  const json = eventToJson(event);
  if (!settings.attachSnapshot || !event.imageUrl) return { json };
  try {
    const media = await client.media.download(event, 'image');
    const binary = await context.helpers.prepareBinaryData(media.data, media.fileName, media.contentType);
    return { json, binary: { [settings.binaryPropertyName]: binary } };
  } catch (error) {
    const message = toNodeError(context.getNode(), error).message;
    context.logger.warn(`Observation Trigger: snapshot of event ${event.eventName} not attached: ${message}`);
    return { json: { ...json, snapshotError: message } };
  }
}

export class ObservationTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Observation Trigger',
    name: 'observationTrigger',
    icon: { light: 'file:../../icons/observation.svg', dark: 'file:../../icons/observation.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle: '={{ $parameter["tasks"] === "all" ? "All tasks" : "Selected tasks" }}',
    description:
      'Starts the workflow when the Observation Service detects an event (realtime, with catch-up)',
    eventTriggerDescription: 'Waiting for an event from the Observation Service',
    activationMessage: 'Events detected by the selected tasks will now start this workflow.',
    documentationUrl:
      'https://github.com/observation-service/observation-service-integrations/tree/main/packages/n8n-nodes#observation-trigger',
    defaults: { name: 'Observation Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'observationApi', required: true, testedBy: 'observationApiTest' }],
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
            description: 'Whether to download the snapshot image and add it to the item as binary data',
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
              'Whether to fetch events that happened while the workflow was inactive (from history, after the last event this trigger saw)',
          },
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
        ],
      },
    ],
  };

  methods = {
    credentialTest: { observationApiTest },
    loadOptions: { getEventNames, getTasks },
  };

  async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
    const settings = readTriggerParameters(this, readTriggerSettings);
    const client = await openRealtimeClient(this);
    let subscription: Subscription | undefined;
    const closeFunction = closeOnce(async () => {
      await subscription?.close();
      await client.close();
    }).close;

    const reportProblem = (error: Error): void => {
      // Malformed messages, failed backfills: reported, the stream goes on.
      this.logger.warn(`Observation Trigger: ${error.message}`);
    };

    if (this.getMode() === 'manual') {
      // "Listen for test event": the first matching event is emitted, then everything closes.
      const manualTriggerFunction = async (): Promise<void> => {
        try {
          await new Promise<void>((resolve, reject) => {
            let emitted = false;
            subscription = client.events.subscribe(settings.selection, {
              onEvent: async (event) => {
                if (emitted || !matchesEventFilter(event, settings.filter)) return;
                emitted = true;
                this.emit([[await toItem(this, client, settings, event)]]);
                resolve();
              },
              onStateChange: (state, info) => {
                if (state === 'failed') {
                  reject(toNodeError(this.getNode(), info.error ?? new Error('The event stream failed')));
                } else if (state === 'closed') {
                  // The user stopped listening (n8n called closeFunction): stop waiting too.
                  resolve();
                }
              },
              onError: reportProblem,
            });
          });
        } finally {
          await closeFunction();
        }
      };
      return { manualTriggerFunction, closeFunction };
    }

    const staticData = this.getWorkflowStaticData('node');
    // The position reaches static data once the executions before it finished (see
    // confirmed-position.ts); n8n saves static data at the next emit.
    const position = new ConfirmedPositionStore(staticDataPositionStore(staticData));
    // One execution per batch (a batch of 1 is today's one execution per event). Each event's
    // promise settles when its batch was emitted: only then does core move the position.
    const batcher = new EventBatcher<INodeExecutionData>({
      size: settings.batchSize,
      waitMs: settings.batchWaitMs,
      clock: n8nClock,
      // The key makes n8n refuse a second execution of events caught up again after a restart
      // (see execution-key.ts): with one event per execution, exactly once across a killed main.
      emit: (items) =>
        emitExecution(
          this,
          position,
          items,
          executionKey(
            this.getWorkflow().id,
            this.getNode().id,
            items.map((item) => item.json),
          ),
          settings.rerunLostExecutions,
        ),
    });
    subscription = client.events.subscribe(
      settings.selection,
      {
        onEvent: (event) => {
          // Filters come first: a filtered-out event is done at once (the position passes it).
          if (!matchesEventFilter(event, settings.filter)) return;
          // Added before any await, so items keep the event order while snapshots download.
          const item = toItem(this, client, settings, event);
          // While n8n has too many executions unfinished, wait (in order) before handing it on.
          const room = position.room();
          return room ? room.then(() => batcher.add(item)) : batcher.add(item);
        },
        onStateChange: (state, info) => {
          if (state === 'reconnecting' && info.error) {
            // Core reconnects by itself; the log says why the stream paused.
            this.logger.warn(
              `Observation Trigger: reconnecting (attempt ${info.attempt ?? 1}): ${info.error.message}`,
            );
          }
          if (state === 'failed') {
            // A final failure (bad token, service id refused): n8n shows it on the workflow.
            this.emitError(toNodeError(this.getNode(), info.error ?? new Error('The event stream failed')));
          }
        },
        onError: reportProblem,
      },
      subscribeOptions(settings, staticData, position),
    );
    return {
      closeFunction: async () => {
        // A partial batch is dropped, not emitted: its events stay outside the saved position, so
        // with catch-up on the next activation reads them again (an emit while n8n deactivates or
        // shuts down may never run, and the position after it would not be saved).
        batcher.close();
        await closeFunction();
      },
    };
  }
}
