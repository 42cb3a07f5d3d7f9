import type { INodeProperties } from 'n8n-workflow';
import { locationLocator, outputOptions, paging, taskLocator } from './common-fields';

const show = { resource: ['event'] };

export const eventOperations: INodeProperties = {
  displayName: 'Operation',
  name: 'operation',
  type: 'options',
  noDataExpression: true,
  displayOptions: { show },
  default: 'getMany',
  options: [
    {
      name: 'Get Many',
      value: 'getMany',
      action: 'Get many events',
      description: 'Query past events (history) by time range, task, type, location or camera',
    },
    {
      name: 'Get Type',
      value: 'getType',
      action: 'Get an event type',
      description: 'Get the name and description of an event type',
    },
  ],
};

export const eventFields: INodeProperties[] = [
  ...paging('event'),
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    displayOptions: { show: { ...show, operation: ['getMany'] } },
    options: [
      {
        displayName: 'Camera ID',
        name: 'cameraId',
        type: 'number',
        default: 0,
        description: 'Only events of this camera (extended deployments)',
      },
      {
        displayName: 'End Time',
        name: 'endTime',
        type: 'dateTime',
        default: '',
        description: 'Only events up to this time (UTC when no zone is given)',
      },
      {
        displayName: 'Event Name',
        name: 'eventName',
        type: 'string',
        default: '',
        placeholder: 'e.g. person_detected',
      },
      {
        displayName: 'Event Record IDs',
        name: 'ids',
        type: 'string',
        default: '',
        placeholder: 'e.g. 101, 102',
        description: 'Comma-separated record IDs of specific events (extended deployments)',
      },
      {
        displayName: 'Event Type Name or ID',
        name: 'eventTypeId',
        type: 'options',
        typeOptions: { loadOptionsMethod: 'getEventTypes' },
        default: '',
        description:
          'Only events of this type (extended deployments). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
      },
      locationLocator({ description: 'Only events at this location (extended deployments)' }, true),
      {
        displayName: 'Start Time',
        name: 'startTime',
        type: 'dateTime',
        default: '',
        description: 'Only events from this time on (UTC when no zone is given)',
      },
      taskLocator({ description: 'Only events of this task' }, true),
    ],
  },
  {
    displayName: 'Event Type Name or ID',
    name: 'eventTypeId',
    type: 'options',
    required: true,
    typeOptions: { loadOptionsMethod: 'getEventTypes' },
    default: '',
    displayOptions: { show: { ...show, operation: ['getType'] } },
    description:
      'The event type (the eventTypeId of an event). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
  },
  outputOptions('event', ['getMany', 'getType']),
];
