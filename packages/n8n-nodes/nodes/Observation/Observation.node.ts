import type { ObservationClient } from '@observation-service/core/portable';
import {
  type IBinaryData,
  type IDataObject,
  type IExecuteFunctions,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
  NodeConnectionTypes,
  NodeOperationError,
} from 'n8n-workflow';
import {
  getEventNames,
  getEventTypes,
  getTasks,
  searchLocations,
  searchTasks,
} from '../../shared/list-search';
import { toNodeError } from '../../shared/node-error';
import { withClient } from '../../shared/open-client';
import { eventFields, eventOperations } from './descriptions/event.description';
import { locationFields, locationOperations } from './descriptions/location.description';
import { mediaFields, mediaOperations } from './descriptions/media.description';
import { taskFields, taskOperations } from './descriptions/task.description';
import { withFieldLabel } from './field-labels';
import { getEventType, getManyEvents } from './operations/event.operations';
import { getLocation, getManyLocations } from './operations/location.operations';
import { annotatedSnapshot, downloadMedia } from './operations/media.operations';
import { getManyTasks, getTask } from './operations/task.operations';

type JsonOperation = (
  context: IExecuteFunctions,
  client: ObservationClient,
  itemIndex: number,
) => Promise<IDataObject[]>;

const jsonOperations: Record<string, JsonOperation> = {
  'event:getMany': getManyEvents,
  'event:getType': getEventType,
  'location:get': getLocation,
  'location:getMany': getManyLocations,
  'task:get': getTask,
  'task:getMany': getManyTasks,
};

export class Observation implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Observation',
    name: 'observation',
    icon: { light: 'file:../../icons/observation.svg', dark: 'file:../../icons/observation.dark.svg' },
    group: ['input'],
    version: 1,
    subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
    description: 'Read AI camera events, event types, locations, tasks and media of the Observation Service',
    documentationUrl:
      'https://github.com/observation-service/observation-service-integrations/tree/main/packages/n8n-nodes#observation-node',
    defaults: { name: 'Observation' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'observationApi', required: true }],
    properties: [
      {
        displayName: 'Resource',
        name: 'resource',
        type: 'options',
        noDataExpression: true,
        default: 'event',
        options: [
          { name: 'Event', value: 'event' },
          { name: 'Location', value: 'location' },
          { name: 'Media', value: 'media' },
          { name: 'Task', value: 'task' },
        ],
      },
      eventOperations,
      locationOperations,
      mediaOperations,
      taskOperations,
      ...eventFields,
      ...locationFields,
      ...mediaFields,
      ...taskFields,
    ],
  };

  methods = {
    listSearch: { searchTasks, searchLocations },
    loadOptions: { getEventNames, getEventTypes, getTasks },
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const items = this.getInputData();
    const output: INodeExecutionData[] = [];
    await withClient(this, async (client) => {
      for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
        const resource = this.getNodeParameter('resource', itemIndex) as string;
        const operation = this.getNodeParameter('operation', itemIndex) as string;
        try {
          if (resource === 'media') {
            const property = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
            const json = { ...(items[itemIndex]?.json ?? {}) };
            let binary: IBinaryData;
            if (operation === 'annotatedSnapshot') {
              const annotated = await annotatedSnapshot(this, client, itemIndex);
              binary = annotated.binary;
              json.annotatedObjects = annotated.drawn;
            } else {
              binary = await downloadMedia(
                this,
                client,
                itemIndex,
                operation === 'downloadClip' ? 'video' : 'image',
              );
            }
            output.push({
              json,
              binary: { ...items[itemIndex]?.binary, [property]: binary },
              pairedItem: { item: itemIndex },
            });
            continue;
          }
          const run = jsonOperations[`${resource}:${operation}`];
          if (!run) {
            throw new NodeOperationError(
              this.getNode(),
              `The operation "${operation}" is not known for the resource "${resource}"`,
              { itemIndex },
            );
          }
          const results = await run(this, client, itemIndex);
          for (const json of results) output.push({ json, pairedItem: { item: itemIndex } });
        } catch (error) {
          const nodeError = toNodeError(this.getNode(), withFieldLabel(error, operation), itemIndex);
          if (this.continueOnFail()) {
            output.push({
              json: { error: nodeError.message, description: nodeError.description ?? undefined },
              pairedItem: { item: itemIndex },
            });
            continue;
          }
          throw nodeError;
        }
      }
    });
    return [output];
  }
}
