import type { INodeProperties } from 'n8n-workflow';
import { locationLocator, outputOptions, paging, taskLocator } from './common-fields';

const show = { resource: ['task'] };

export const taskOperations: INodeProperties = {
  displayName: 'Operation',
  name: 'operation',
  type: 'options',
  noDataExpression: true,
  displayOptions: { show },
  default: 'getMany',
  options: [
    {
      name: 'Get',
      value: 'get',
      action: 'Get a task',
      description: 'Get one task in detail (schedule, event settings, zones), with its parsed status',
    },
    {
      name: 'Get Many',
      value: 'getMany',
      action: 'Get many tasks',
      description: 'List tasks with their parsed status, optionally of one location or camera',
    },
  ],
};

export const taskFields: INodeProperties[] = [
  taskLocator({ required: true, displayOptions: { show: { ...show, operation: ['get'] } } }),
  ...paging('task'),
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    displayOptions: { show: { ...show, operation: ['getMany'] } },
    options: [
      { displayName: 'Camera ID', name: 'cameraId', type: 'number', default: 0 },
      locationLocator({ description: 'Only tasks at this location' }, true),
    ],
  },
  outputOptions('task', ['get', 'getMany']),
];
