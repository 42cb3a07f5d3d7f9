/**
 * A status text with nothing to fill in, sent as its catalog key (`observation-events.status.error`):
 * Node-RED's editor translates a status that is a key of the node's own catalog into the editor's
 * language, as core nodes do with theirs. A text the runtime translated stays in the runtime's
 * language, whatever the editor's; so only texts with a count or a name (which the editor cannot
 * fill in) are translated by the runtime.
 */
export function editorText(key: string): string {
  return key;
}
