import {
  parseTaskStatus,
  type TaskStatus,
  type TaskWatchEvent,
  type TaskWatchEventType,
} from '@observation-service/core/portable';
import type { IDataObject } from 'n8n-workflow';
import { type TaskChangeSettings, taskEventToJson } from './task-trigger-parameters';

type Category = TaskStatus['category'];

/** A documented status of each category, for a sample change (the spec's status list). */
const sampleStatus: Record<Category, string> = {
  'non-operating': 'non-operating, paused',
  unknown: 'video',
  operating: 'operating, disconnected',
};
const categoryLabel: Record<Category, string> = {
  operating: 'Operating',
  'non-operating': 'Non-Operating',
  unknown: 'Unknown',
};

/**
 * What a test run ("Fetch Test Event") gives, from the current status of every listed task
 * (`initial` watch events): what the settings ask for, as n8n's own polling triggers show the
 * newest matching item in a test. A change cannot be shown before it happens, so:
 *
 * - the selected tasks whose current status passes the New Status Category filter, as `initial`
 *   items (each saying it is the current status, not a change): a task that is down now is what
 *   an outage alert is about;
 * - when none does (all tasks operating, for an outage alert), or only removals are asked for,
 *   one item shaped like the change the settings ask for, on the first selected task, marked
 *   `sample: true` with a note: the workflow after the trigger can be built and tried on it, and
 *   nobody takes it for a real outage.
 *
 * Empty when no selected task exists (the caller says so).
 */
export function testRunItems(
  settings: TaskChangeSettings,
  current: readonly TaskWatchEvent[],
): IDataObject[] {
  const selected = current.filter(
    (event) => settings.taskIds === undefined || settings.taskIds.includes(event.taskId),
  );
  const [first] = selected;
  if (first === undefined) return [];
  const reportsStatus = settings.changes.has('changed') || settings.changes.has('added');
  const matching = reportsStatus
    ? selected.filter(
        (event) =>
          event.current !== undefined &&
          (settings.newCategories.size === 0 || settings.newCategories.has(event.current.category)),
      )
    : [];
  if (matching.length > 0) {
    return matching.map((event) => ({
      ...taskEventToJson(event),
      note: 'Current status at this test run, not a change: once published, the workflow starts on changes only',
    }));
  }
  return [sampleChange(settings, first)];
}

/** The first change type the settings ask for, in the order the field lists them. */
function askedType(changes: ReadonlySet<TaskWatchEventType>): 'changed' | 'added' | 'removed' {
  if (changes.has('changed')) return 'changed';
  if (changes.has('added')) return 'added';
  return 'removed';
}

function sampleChange(settings: TaskChangeSettings, task: TaskWatchEvent): IDataObject {
  const type = askedType(settings.changes);
  const now = task.current ?? parseTaskStatus('operating, normal');
  const wanted = [...settings.newCategories];
  const category = wanted[0] ?? (now.category === 'operating' ? 'non-operating' : 'operating');
  const status = parseTaskStatus(sampleStatus[category]);
  const base = { taskId: task.taskId, taskName: task.taskName, at: task.at, task: task.task };
  const event: TaskWatchEvent =
    type === 'removed'
      ? { ...base, type, previous: now, current: undefined }
      : type === 'added'
        ? { ...base, type, previous: undefined, current: status }
        : { ...base, type, previous: now, current: status };
  const why =
    wanted.length > 0 && type !== 'removed'
      ? `none of the selected tasks is ${wanted.map((c) => categoryLabel[c]).join(' or ')} now`
      : 'a change cannot be shown before it happens';
  return {
    ...taskEventToJson(event),
    sample: true,
    note: `A sample, not a real change (${why}): it shows what a change gives. Once published, the workflow starts on real changes only`,
  };
}
