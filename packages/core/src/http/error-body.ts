const maxReason = 300;
const maxBodyText = 2000;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function describeDetail(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail;
  // FastAPI-style validation detail: [{ loc: ['query', 'limit'], msg: '…' }, …]
  if (Array.isArray(detail)) {
    const parts = detail.map((item) => {
      if (item && typeof item === 'object' && 'msg' in item) {
        const loc = 'loc' in item && Array.isArray(item.loc) ? `${item.loc.join('.')}: ` : '';
        return `${loc}${String(item.msg)}`;
      }
      return typeof item === 'string' ? item : JSON.stringify(item);
    });
    return parts.join('; ');
  }
  if (detail && typeof detail === 'object') return JSON.stringify(detail);
  return undefined;
}

export interface ParsedErrorBody {
  /** JSON value, or the clipped text when the body is not JSON. */
  body: unknown;
  reason: string | undefined;
}

/**
 * Reads a readable reason out of an error body: JSON `detail` / `message` / `error`, an HTML
 * `<title>`, or the plain text itself. Never throws.
 */
export function parseErrorBody(text: string, contentType: string | undefined): ParsedErrorBody {
  if (text.trim() === '') return { body: undefined, reason: undefined };
  try {
    const json: unknown = JSON.parse(text);
    if (json && typeof json === 'object' && !Array.isArray(json)) {
      const record = json as Record<string, unknown>;
      const reason =
        describeDetail(record.detail) ?? describeDetail(record.message) ?? describeDetail(record.error);
      return { body: json, reason: reason === undefined ? undefined : clip(reason, maxReason) };
    }
    return { body: json, reason: clip(text, maxReason) };
  } catch {
    // not JSON
  }
  const isHtml = contentType?.includes('html') || /^\s*<(!doctype|html)/i.test(text);
  if (isHtml) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
    const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1];
    const reason = (title ?? heading)?.replace(/<[^>]+>/g, '');
    return { body: clip(text, maxBodyText), reason: reason ? clip(reason, maxReason) : undefined };
  }
  return { body: clip(text, maxBodyText), reason: clip(text, maxReason) };
}

/** The largest allowed value an error message names, e.g. "less than or equal to 100". */
export function findNamedMaximum(reason: string | undefined): number | undefined {
  if (!reason) return undefined;
  const match =
    /(?:<=|≤|less than or equal to|at most|no more than|not exceed|maximum(?: value)?(?: is| of|:)?|max(?:imum)?\s*(?:=|is|:))\s*(\d+)/i.exec(
      reason,
    ) ?? /(?:between|from)\s+\d+\s+(?:and|to)\s+(\d+)/i.exec(reason);
  const n = match?.[1] === undefined ? undefined : Number(match[1]);
  return n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
