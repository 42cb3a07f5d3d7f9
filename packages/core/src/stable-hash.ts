/**
 * A short, stable name for a text: two FNV-1a lanes, 64 bits as 16 hex digits. Not a secret and
 * not collision-proof against an adversary; for keys that must come out the same on every run
 * and every host (a stored position's scope, an n8n execution's deduplication key).
 */
export function stableHash(text: string): string {
  let first = 0x811c9dc5;
  let second = 0x01000193;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193) >>> 0;
    second = Math.imul(second ^ code, 0x5bd1e995) >>> 0;
  }
  return `${first.toString(16).padStart(8, '0')}${second.toString(16).padStart(8, '0')}`;
}
