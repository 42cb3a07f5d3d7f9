import type { INodeProperties } from 'n8n-workflow';

/**
 * The By ID mode's check in the editor. Only for a top-level locator: n8n checks the options of a
 * collection (Filters) against the top-level parameter of the same name, so a Task filter with
 * this check repeated the error of Task → Get ("A task ID is a whole number" twice). A filter's id
 * is checked when the node runs (core's check, naming the field).
 */
function idValidation(
  label: string,
  example: string,
): NonNullable<INodeProperties['modes']>[number]['validation'] {
  return [
    {
      type: 'regex',
      properties: {
        regex: '^\\s*[0-9]+\\s*$',
        errorMessage: `${label}: enter its ID as a whole number, e.g. ${example}`,
      },
    },
  ];
}

/** A task picked from a searchable list or typed as an id (`inFilters`: an option of a collection). */
export function taskLocator(overrides: Partial<INodeProperties> = {}, inFilters = false): INodeProperties {
  return {
    displayName: 'Task',
    name: 'task',
    type: 'resourceLocator',
    default: { mode: 'list', value: '' },
    description: 'The task (a camera at a location watching for events)',
    modes: [
      {
        displayName: 'From List',
        name: 'list',
        type: 'list',
        typeOptions: { searchListMethod: 'searchTasks', searchable: true },
      },
      {
        displayName: 'By ID',
        name: 'id',
        type: 'string',
        placeholder: 'e.g. 12',
        ...(inFilters ? {} : { validation: idValidation('Task', '12') }),
      },
    ],
    ...overrides,
  };
}

/** A location picked from a searchable list or typed as an id (`inFilters`: an option of a collection). */
export function locationLocator(
  overrides: Partial<INodeProperties> = {},
  inFilters = false,
): INodeProperties {
  return {
    displayName: 'Location',
    name: 'location',
    type: 'resourceLocator',
    default: { mode: 'list', value: '' },
    modes: [
      {
        displayName: 'From List',
        name: 'list',
        type: 'list',
        typeOptions: { searchListMethod: 'searchLocations', searchable: true },
      },
      {
        displayName: 'By ID',
        name: 'id',
        type: 'string',
        placeholder: 'e.g. 3',
        ...(inFilters ? {} : { validation: idValidation('Location', '3') }),
      },
    ],
    ...overrides,
  };
}

/** Return All + Limit, shown for one resource's Get Many. */
export function paging(resource: string): INodeProperties[] {
  const show = { resource: [resource], operation: ['getMany'] };
  return [
    {
      displayName: 'Return All',
      name: 'returnAll',
      type: 'boolean',
      default: false,
      displayOptions: { show },
      description: 'Whether to return all results or only up to a given limit',
    },
    {
      displayName: 'Limit',
      name: 'limit',
      type: 'number',
      default: 50,
      typeOptions: { minValue: 1 },
      displayOptions: { show: { ...show, returnAll: [false] } },
      description: 'Max number of results to return',
    },
  ];
}

/** The Options collection every read shares. */
export function outputOptions(resource: string, operations: string[]): INodeProperties {
  return {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    displayOptions: { show: { resource: [resource], operation: operations } },
    options: [
      {
        displayName: 'Output Raw Payload',
        name: 'rawOutput',
        type: 'boolean',
        default: false,
        description:
          "Whether to output the payload exactly as the service sent it (snake_case) instead of the nodes' camelCase fields",
      },
    ],
  };
}
