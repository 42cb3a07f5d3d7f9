import type { VlmAnswer, VlmResult } from '../model/observation-event.js';
import { isRecord, type Problems, readInteger, readString, sample, setOwn } from './read-fields.js';

function readAnswer(value: unknown, key: string, problems: Problems): VlmAnswer | undefined {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value)) {
    // Vendor samples show arrays of strings ("Weather": ["Cloudy"]); keep scalars as text.
    let allText = true;
    let allScalar = true;
    for (let i = 0; i < value.length; i++) {
      const type = typeof value[i];
      if (type !== 'string') {
        allText = false;
        if (type !== 'number' && type !== 'boolean') {
          allScalar = false;
          break;
        }
      }
    }
    if (allText) return value as string[];
    if (allScalar) {
      problems.push(`vlm[${JSON.stringify(key)}] holds non-text items, read as text`);
      return value.map((v) => String(v));
    }
  }
  problems.push(`vlm[${JSON.stringify(key)}] has an unsupported value: ${sample(value)}; answer skipped`);
  return undefined;
}

/** Splits `vlm` into template id/name and an answers map. */
export function readVlm(value: unknown, problems: Problems): VlmResult | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) {
    problems.push(`vlm is not an object: ${sample(value)}`);
    return undefined;
  }
  const result: VlmResult = { answers: {} };
  const answers = result.answers;
  // `for…in` rather than Object.keys: no key array per event, and each value read by its slot.
  for (const key in value) {
    const raw = value[key];
    if (key === 'observ_template_id') {
      const id =
        typeof raw === 'number' && Number.isSafeInteger(raw)
          ? raw
          : readInteger(raw, 'vlm.observ_template_id', problems);
      if (id !== undefined) result.templateId = id;
    } else if (key === 'observ_template_name') {
      const name = typeof raw === 'string' ? raw : readString(raw, 'vlm.observ_template_name', problems);
      if (name !== undefined) result.templateName = name;
    } else {
      const answer = readAnswer(raw, key, problems);
      if (answer !== undefined) setOwn(answers, key, answer);
    }
  }
  return result;
}
