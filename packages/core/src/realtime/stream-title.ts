/**
 * A stream as a message names it: the one socket of the extended form carries the whole selection
 * ("extended" is a label for positions, not a word for users); a basic-form socket is one task.
 */
export function streamTitle(label: string): string {
  return label === 'extended' ? 'the selected tasks' : label;
}
