import type { DetectedObject } from '../model/observation-event.js';
import { isRecord, type Problems, readBoolean, readNumber, readString, sample } from './read-fields.js';

// Problem messages name the object by index; the name is built only when there is a problem.
const at = (index: number) => `detected_objects[${index}]`;

function isBox(coords: unknown): coords is [number, number, number, number] {
  if (!Array.isArray(coords) || coords.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const c = coords[i];
    if (typeof c !== 'number' || !Number.isFinite(c)) return false;
  }
  return true;
}

function readObject(raw: unknown, index: number, problems: Problems): DetectedObject | undefined {
  if (!isRecord(raw)) {
    problems.push(`${at(index)} is not an object: ${sample(raw)}`);
    return undefined;
  }
  const coords = raw.coordinates;
  if (!isBox(coords)) {
    problems.push(
      `${at(index)}.coordinates is not 4 numbers [cx, cy, w, h]: ${sample(coords)}; object skipped`,
    );
    return undefined;
  }
  const rawName = raw.object_name;
  let name: string | undefined;
  if (typeof rawName === 'string') name = rawName;
  else if (rawName === undefined) problems.push(`${at(index)}.object_name is missing`);
  else name = readString(rawName, `${at(index)}.object_name`, problems);

  const rawId = raw.object_id;
  let objectId: string | undefined;
  if (typeof rawId === 'string') objectId = rawId;
  else if (rawId === undefined) problems.push(`${at(index)}.object_id is missing`);
  else objectId = readString(rawId, `${at(index)}.object_id`, problems);

  const rawConfidence = raw.confidence_score;
  let confidence: number | undefined;
  if (typeof rawConfidence === 'number' && Number.isFinite(rawConfidence)) confidence = rawConfidence;
  else if (rawConfidence === undefined) problems.push(`${at(index)}.confidence_score is missing`);
  else confidence = readNumber(rawConfidence, `${at(index)}.confidence_score`, problems);
  if (confidence !== undefined && (confidence < 0 || confidence > 1)) {
    problems.push(`${at(index)}.confidence_score ${confidence} is outside 0..1`);
  }

  const rawWarning = raw.warning;
  let warning = false;
  if (typeof rawWarning === 'boolean') warning = rawWarning;
  else if (rawWarning !== undefined)
    warning = readBoolean(rawWarning, `${at(index)}.warning`, problems) ?? false;

  return {
    objectId: objectId ?? '',
    name: name ?? '',
    box: { cx: coords[0], cy: coords[1], w: coords[2], h: coords[3] },
    confidence: confidence ?? 0,
    warning,
  };
}

/** Reads `detected_objects`; bad entries are skipped and reported. */
export function readDetectedObjects(value: unknown, problems: Problems): DetectedObject[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push(`detected_objects is not an array: ${sample(value)}`);
    return [];
  }
  const objects: DetectedObject[] = [];
  for (let index = 0; index < value.length; index++) {
    const object = readObject(value[index], index, problems);
    if (object) objects.push(object);
  }
  return objects;
}
