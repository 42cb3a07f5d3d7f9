import type { VlmAnswer, VlmResult } from '../model/observation-event.js';
import { isRecord, type Problems, readInteger, readString, sample, setOwn } from './read-fields.js';

function readAnswer(value: unknown, key: string, problems: Problems): VlmAnswer | undefined {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value)) {
    // Vendor samples show arrays of strings ("Weather": ["Cloudy"]); keep scalars as text.
    if (value.every((v) => typeof v === 'string')) return value as string[];
    if (value.every((v) => typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string')) {
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
  for (const [key, raw] of Object.entries(value)) {
    if (key === 'observ_template_id') {
      const id = readInteger(raw, 'vlm.observ_template_id', problems);
      if (id !== undefined) result.templateId = id;
    } else if (key === 'observ_template_name') {
      const name = readString(raw, 'vlm.observ_template_name', problems);
      if (name !== undefined) result.templateName = name;
    } else {
      const answer = readAnswer(raw, key, problems);
      if (answer !== undefined) setOwn(result.answers, key, answer);
    }
  }
  return result;
}
