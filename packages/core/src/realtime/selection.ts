import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';
import { parseIdList } from '../validation/parse-id-list.js';
import type { TaskSelection } from './types.js';

const allowed = "a task id, a non-empty array of distinct task ids (positive whole numbers) or 'all'";

/** A checked selection: `'all'` or distinct positive safe integers in the caller's order. */
export type ResolvedSelection = 'all' | readonly number[];

/**
 * Validates what the caller asked to follow. Strings of digits are not accepted here: the public
 * type is numeric, and adapters convert their text inputs with `parseIdList` first.
 */
export function resolveSelection(selection: TaskSelection | unknown): ResolvedSelection {
  if (selection === 'all') return 'all';
  const isNumber = typeof selection === 'number';
  const isNumberArray = Array.isArray(selection) && selection.every((id) => typeof id === 'number');
  if (!isNumber && !isNumberArray) {
    throw new ValidationError('selection', describeValue(selection), allowed);
  }
  return Object.freeze(parseIdList(selection, 'selection'));
}
