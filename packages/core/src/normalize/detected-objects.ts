import type { DetectedObject } from '../model/observation-event.js';
import { isRecord, type Problems, readBoolean, readNumber, readString, sample } from './read-fields.js';

function readObject(raw: unknown, index: number, problems: Problems): DetectedObject | undefined {
  const where = `detected_objects[${index}]`;
  if (!isRecord(raw)) {
    problems.push(`${where} is not an object: ${sample(raw)}`);
    return undefined;
  }
  const coords = raw.coordinates;
  if (
    !Array.isArray(coords) ||
    coords.length !== 4 ||
    !coords.every((c) => typeof c === 'number' && Number.isFinite(c))
  ) {
    problems.push(`${where}.coordinates is not 4 numbers [cx, cy, w, h]: ${sample(coords)}; object skipped`);
    return undefined;
  }
  const [cx, cy, w, h] = coords as [number, number, number, number];
  const name =
    raw.object_name === undefined ? undefined : readString(raw.object_name, `${where}.object_name`, problems);
  if (raw.object_name === undefined) problems.push(`${where}.object_name is missing`);
  const objectId =
    raw.object_id === undefined ? undefined : readString(raw.object_id, `${where}.object_id`, problems);
  if (raw.object_id === undefined) problems.push(`${where}.object_id is missing`);
  let confidence =
    raw.confidence_score === undefined
      ? undefined
      : readNumber(raw.confidence_score, `${where}.confidence_score`, problems);
  if (raw.confidence_score === undefined) problems.push(`${where}.confidence_score is missing`);
  if (confidence !== undefined && (confidence < 0 || confidence > 1)) {
    problems.push(`${where}.confidence_score ${confidence} is outside 0..1`);
  }
  confidence ??= 0;
  const warning =
    raw.warning === undefined ? false : (readBoolean(raw.warning, `${where}.warning`, problems) ?? false);
  return { objectId: objectId ?? '', name: name ?? '', box: { cx, cy, w, h }, confidence, warning };
}

/** Reads `detected_objects`; bad entries are skipped and reported. */
export function readDetectedObjects(value: unknown, problems: Problems): DetectedObject[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push(`detected_objects is not an array: ${sample(value)}`);
    return [];
  }
  const objects: DetectedObject[] = [];
  value.forEach((raw, index) => {
    const object = readObject(raw, index, problems);
    if (object) objects.push(object);
  });
  return objects;
}
