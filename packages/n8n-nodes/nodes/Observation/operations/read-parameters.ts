import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** The id typed or picked in a resource locator (still unchecked: core's parseId checks it). */
export function locatorValue(context: IExecuteFunctions, name: string, itemIndex: number): unknown {
  return context.getNodeParameter(name, itemIndex, undefined, { extractValue: true });
}

/** A collection's entry, treating n8n's "not set" defaults ('' and 0) as absent. */
export function optional(collection: IDataObject, name: string): unknown {
  const value = collection[name];
  if (value === undefined || value === null || value === '' || value === 0) return undefined;
  if (typeof value === 'object' && 'value' in value) {
    // A resource locator inside a collection arrives as { mode, value }.
    const inner = (value as { value?: unknown }).value;
    return inner === '' || inner === undefined ? undefined : inner;
  }
  return value;
}

export interface Paging {
  returnAll: boolean;
  limit: number;
}

export function readPaging(context: IExecuteFunctions, itemIndex: number): Paging {
  const returnAll = context.getNodeParameter('returnAll', itemIndex, false) as boolean;
  const limit = returnAll ? 0 : (context.getNodeParameter('limit', itemIndex, 50) as number);
  return { returnAll, limit };
}

export function wantsRaw(context: IExecuteFunctions, itemIndex: number): boolean {
  const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
  return options.rawOutput === true;
}

/** Reads an async sequence up to `max` entries (0 = all). */
export async function take<T>(source: AsyncIterable<T>, max: number): Promise<T[]> {
  const out: T[] = [];
  for await (const entry of source) {
    out.push(entry);
    if (max > 0 && out.length >= max) break;
  }
  return out;
}
