import type { INodeProperties } from 'n8n-workflow';

/** The Observation Trigger's Snapshot Wait default, so a download waits as the trigger does. */
export const defaultSnapshotWaitSeconds = 10;
/** Core's clip wait default: a clip is written only after the event's recording ended. */
export const defaultClipWaitSeconds = 120;
/** Core's longest media wait (600 s). */
export const maxMediaWaitSeconds = 600;

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
    {
      name: 'Get Annotated Snapshot',
      value: 'annotatedSnapshot',
      action: 'Get the annotated snapshot of an event',
      description: "Download an event's snapshot with each detected object's box and label drawn on it",
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
    displayName: 'Event',
    name: 'event',
    type: 'json',
    required: true,
    default: '={{ $json }}',
    displayOptions: { show: { ...show, operation: ['annotatedSnapshot'] } },
    description:
      'The event whose snapshot to annotate: an item of the Observation Trigger or of Event → Get Many (its imageUrl and objects are used)',
  },
  {
    displayName: 'Snapshot Wait (Seconds)',
    name: 'snapshotWaitSeconds',
    type: 'number',
    default: defaultSnapshotWaitSeconds,
    typeOptions: { minValue: 0, maxValue: maxMediaWaitSeconds },
    displayOptions: { show: { ...show, operation: ['downloadSnapshot', 'annotatedSnapshot'] } },
    description:
      "How long to wait for a snapshot the service has not written yet (it writes a new event's snapshot a few seconds after the event). 0 = one attempt.",
  },
  {
    displayName: 'Clip Wait (Seconds)',
    name: 'clipWaitSeconds',
    type: 'number',
    default: defaultClipWaitSeconds,
    typeOptions: { minValue: 0, maxValue: maxMediaWaitSeconds },
    displayOptions: { show: { ...show, operation: ['downloadClip'] } },
    description:
      "How long to wait for a clip the service has not written yet (it writes a clip once the event's recording has ended). 0 = one attempt.",
  },
  {
    displayName: 'Options',
    name: 'annotateOptions',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    displayOptions: { show: { ...show, operation: ['annotatedSnapshot'] } },
    options: [
      {
        displayName: 'Format',
        name: 'format',
        type: 'options',
        default: 'png',
        options: [
          { name: 'PNG', value: 'png' },
          { name: 'JPEG', value: 'jpeg' },
        ],
      },
      {
        displayName: 'Labels',
        name: 'labels',
        type: 'boolean',
        default: true,
        description: 'Whether to write the object name and confidence next to each box',
      },
      {
        displayName: 'Line Width (Px)',
        name: 'lineWidth',
        type: 'number',
        default: 4,
        typeOptions: { minValue: 1, maxValue: 64 },
        description: 'Outline thickness of the boxes; boxes of objects in warning state are drawn thicker',
      },
    ],
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
