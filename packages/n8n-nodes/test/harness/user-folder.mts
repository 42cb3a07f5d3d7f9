import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';

/** Removes the n8n user folder the engine tests ran with (see vitest.config.mts) when the run ends. */
export default function setup(project: TestProject): () => void {
  const folder = project.config.provide.userFolder as string;
  return () => rmSync(folder, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    userFolder: string;
  }
}
