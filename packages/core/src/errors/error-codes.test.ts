import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { observationErrorCodes } from './observation-error.js';

/** Every source file of core (tests aside). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__tests__' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('error codes', () => {
  it('the documented union names every code core emits, and nothing it does not', () => {
    const emitted = new Set<string>();
    for (const file of sources(join(import.meta.dirname, '..'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(
        /(?:new ObservationError\(|super\(|code: |\?\? )\s*'([A-Z_]+_[A-Z_]+)'/g,
      )) {
        emitted.add(match[1] as string);
      }
    }
    expect([...emitted].sort()).toEqual([...observationErrorCodes].sort());
  });
});
