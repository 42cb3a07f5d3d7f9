import type { INodeProperties } from 'n8n-workflow';

const show = { resource: ['media'] };

export const mediaOperations: INodeProperties = {
  displayName: 'Operation',
  name: 'operation',
  type: 'options',
  noDataExpression: true,
  displayOptions: { show },
  default: 'downloadSnapshot',
  options: [
    {
      name: 'Download Clip',
      value: 'downloadClip',
      action: 'Download the video clip of an event',
      description: 'Download the video clip of an event as binary data',
    },
    {
      name: 'Download Snapshot',
      value: 'downloadSnapshot',
      action: 'Download the snapshot of an event',
      description: 'Download the snapshot image of an event as binary data',
    },
  ],
};

export const mediaFields: INodeProperties[] = [
  {
    displayName: 'Snapshot URL',
    name: 'url',
    type: 'string',
    required: true,
    default: '={{ $json.imageUrl }}',
    displayOptions: { show: { ...show, operation: ['downloadSnapshot'] } },
    description:
      'The image URL of an event (imageUrl of a trigger or Get Many item). The token is added only for the service and trusted media hosts.',
  },
  {
    displayName: 'Clip URL',
    name: 'url',
    type: 'string',
    required: true,
    default: '={{ $json.videoUrl }}',
    displayOptions: { show: { ...show, operation: ['downloadClip'] } },
    description:
      'The video URL of an event (videoUrl of a trigger or Get Many item). The token is added only for the service and trusted media hosts.',
  },
  {
    displayName: 'Put Output File in Field',
    name: 'binaryPropertyName',
    type: 'string',
    required: true,
    default: 'data',
    displayOptions: { show },
    hint: 'The name of the output binary field to put the file in',
  },
];
