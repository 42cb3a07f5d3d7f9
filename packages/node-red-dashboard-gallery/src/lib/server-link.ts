import type { Annotator, ObservationClient } from '@observation-service/core';

/**
 * The part of an `observation-server` config node (from @observation-service/node-red-observation)
 * the gallery uses: its core client, for snapshots, clips and names. Duck-typed like that package
 * does itself, so this package needs no code of it at run time.
 */
export interface ServerLink {
  client(): Pick<ObservationClient, 'media' | 'tasks' | 'locations'>;
  /** Draws in the config node's worker threads (node-red-observation 0.x and later); absent before. */
  annotate?: Annotator;
}

export function asServerLink(value: unknown): ServerLink | undefined {
  const candidate = value as { isObservationServer?: unknown; client?: unknown } | null | undefined;
  return candidate?.isObservationServer === true && typeof candidate.client === 'function'
    ? (candidate as ServerLink)
    : undefined;
}
