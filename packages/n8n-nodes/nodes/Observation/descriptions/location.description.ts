import type { INodeProperties } from 'n8n-workflow';
import { locationLocator, outputOptions, paging } from './common-fields';

const show = { resource: ['location'] };

export const locationOperations: INodeProperties = {
  displayName: 'Operation',
  name: 'operation',
  type: 'options',
  noDataExpression: true,
  displayOptions: { show },
  default: 'getMany',
  options: [
    { name: 'Get', value: 'get', action: 'Get a location', description: 'Get one location' },
    {
      name: 'Get Many',
      value: 'getMany',
      action: 'Get many locations',
      description: 'List locations, optionally of one organization',
    },
  ],
};

export const locationFields: INodeProperties[] = [
  locationLocator({ required: true, displayOptions: { show: { ...show, operation: ['get'] } } }),
  ...paging('location'),
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    displayOptions: { show: { ...show, operation: ['getMany'] } },
    options: [
      {
        displayName: 'Organization ID',
        name: 'organizationId',
        type: 'number',
        default: 0,
        description: 'Only locations of this organization',
      },
    ],
  },
  outputOptions('location', ['get', 'getMany']),
];
