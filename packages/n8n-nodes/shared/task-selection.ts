import { parseIdList } from '@observation-service/core/portable';
import type { INodeProperties, IPollFunctions, ITriggerFunctions } from 'n8n-workflow';

/**
 * The task picker both triggers show: all tasks, tasks from the service's list, or typed ids.
 * One definition so the parameter names (`tasks`, `taskList`, `taskIds`) and defaults, which
 * saved workflows depend on, cannot drift apart between the two nodes.
 */
export const taskSelectionProperties: INodeProperties[] = [
  {
    displayName: 'Tasks',
    name: 'tasks',
    type: 'options',
    default: 'all',
    options: [
      {
        name: 'All Tasks',
        value: 'all',
        description: 'Every task of the service, including tasks added later',
      },
      { name: 'From List', value: 'list', description: 'Pick tasks loaded from the service' },
      { name: 'By ID', value: 'ids', description: 'Type task IDs' },
    ],
  },
  {
    displayName: 'Task Names or IDs',
    name: 'taskList',
    type: 'multiOptions',
    typeOptions: { loadOptionsMethod: 'getTasks' },
    default: [],
    required: true,
    displayOptions: { show: { tasks: ['list'] } },
    description:
      'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
  },
  {
    displayName: 'Task IDs',
    name: 'taskIds',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. 12, 15',
    displayOptions: { show: { tasks: ['ids'] } },
    description: 'Comma-separated task IDs',
  },
];

/** Reads the task picker; ids are checked by core (same messages as Node-RED). */
export function readTaskSelection(context: ITriggerFunctions | IPollFunctions): 'all' | number[] {
  const tasks = context.getNodeParameter('tasks', 'all') as string;
  if (tasks === 'list') return parseIdList(context.getNodeParameter('taskList', []) as unknown, 'Tasks');
  if (tasks === 'ids') return parseIdList(context.getNodeParameter('taskIds', '') as unknown, 'Task IDs');
  return 'all';
}
