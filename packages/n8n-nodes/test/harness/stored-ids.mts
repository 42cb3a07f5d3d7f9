import type { IDataObject } from 'n8n-workflow';

/** Record ids the saved position counts as delivered (core's position in the trigger node's static data). */
export function storedIds(data: IDataObject, nodeName = 'Observation Trigger'): number[] {
  const streams = (data[`node:${nodeName}`] as { position?: { streams?: object } } | undefined)?.position
    ?.streams as Record<string, { ids?: Array<number | [number, number]> }> | undefined;
  return Object.values(streams ?? {}).flatMap((stream) =>
    (stream.ids ?? []).flatMap((entry) =>
      typeof entry === 'number'
        ? [entry]
        : Array.from({ length: entry[1] - entry[0] + 1 }, (_, i) => entry[0] + i),
    ),
  );
}
