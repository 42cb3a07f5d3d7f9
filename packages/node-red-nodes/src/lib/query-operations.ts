import {
  type AnnotatedSnapshotOptions,
  eventTypeOutput,
  type HistoryFilters,
  type LocationFilters,
  locationOutput,
  type ObservationClient,
  type TaskFilters,
  taskOutput,
} from '@observation-service/core';
import { sharedAnnotator } from './annotator.js';
import { OPERATION_PARAMETERS, type Operation, type Parameter } from './query-parameters.js';

export interface QueryOptions {
  /** `one` page (limit/offset as given) or `all` pages up to `maxItems`. */
  pages: 'one' | 'all';
  maxItems: number;
  /**
   * Downloads: how long a file the service has not written yet is waited for (ms); undefined =
   * core's default (10 s for a snapshot, as the events node's Image wait, 120 s for a clip).
   */
  mediaWaitMs?: number;
}

/**
 * Whether "all pages, up to a cap" read everything: `complete` false when the cap cut items off.
 * History also says which time it covers and at which end the rest lie (core's CappedHistory).
 */
export interface ListCoverage {
  complete: boolean;
  span?: { from: string; to: string };
  missing?: 'older' | 'newer' | 'unknown';
}

/** What an operation produced: a list, one record, or a downloaded file. */
export type QueryResult =
  | { kind: 'list'; items: unknown[]; coverage?: ListCoverage }
  | { kind: 'item'; item: unknown }
  | {
      kind: 'file';
      data: Buffer;
      contentType: string;
      fileName: string;
      /** Annotated snapshots: the image size and how many objects were drawn on it. */
      annotation?: { width: number; height: number; drawn: number };
    };

type MediaSource = Parameters<ObservationClient['media']['download']>[0];

type Values = Partial<Record<Parameter, unknown>>;

/** Up to `max` items, and whether more exist: one more is read as the proof, as core's history does. */
async function take<T>(items: AsyncIterable<T>, max: number): Promise<{ items: T[]; complete: boolean }> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length > max) break;
  }
  const complete = out.length <= max;
  return { items: complete ? out : out.slice(0, max), complete };
}

async function toBuffer(data: Buffer | NodeJS.ReadableStream): Promise<Buffer> {
  if (Buffer.isBuffer(data)) return data;
  const chunks: Buffer[] = [];
  for await (const chunk of data) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * Parameters go to core as they came (strings from typedInputs, numbers, Dates): core validates
 * them and names the parameter, the value given and what is allowed when one is wrong.
 */
function filters<T>(values: Values, names: readonly Parameter[]): T {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    if (values[name] !== undefined) out[name] = values[name];
  }
  return out as T;
}

/**
 * The wait for a file not written yet. The message came in now: a fresh event (or a bare URL) is
 * waited for from now, even when the service published the event late; core counts the bound.
 */
function mediaWait(options: QueryOptions): { waitMs?: number; receivedAt: number } {
  return {
    receivedAt: Date.now(),
    ...(options.mediaWaitMs === undefined ? {} : { waitMs: options.mediaWaitMs }),
  };
}

/**
 * Runs one query operation with core; every check and mapping of the service is core's, the
 * output shape too: tasks, locations and event types as `taskOutput` & co. give them (camelCase,
 * as events), the same shape the n8n node shows.
 */
export async function runOperation(
  client: ObservationClient,
  operation: Operation,
  values: Values,
  options: QueryOptions,
): Promise<QueryResult> {
  switch (operation) {
    case 'history': {
      const query = filters<HistoryFilters>(values, OPERATION_PARAMETERS.history);
      if (options.pages !== 'all') return { kind: 'list', items: await client.events.history(query) };
      const read = await client.events.collectHistoryCapped(query, { max: options.maxItems });
      const coverage: ListCoverage = { complete: !read.truncated };
      if (read.span) coverage.span = { from: read.span.from.toISOString(), to: read.span.to.toISOString() };
      if (read.missing) coverage.missing = read.missing;
      return { kind: 'list', items: read.events, coverage };
    }
    case 'eventType':
      return { kind: 'item', item: eventTypeOutput(await client.events.getType(values.eventId as number)) };
    case 'locations': {
      const query = filters<LocationFilters>(values, OPERATION_PARAMETERS.locations);
      if (options.pages !== 'all') {
        return { kind: 'list', items: (await client.locations.list(query)).map(locationOutput) };
      }
      const read = await take(client.locations.all(query), options.maxItems);
      return { kind: 'list', items: read.items.map(locationOutput), coverage: { complete: read.complete } };
    }
    case 'location':
      return { kind: 'item', item: locationOutput(await client.locations.get(values.locationId as number)) };
    case 'tasks': {
      const query = filters<TaskFilters>(values, OPERATION_PARAMETERS.tasks);
      if (options.pages !== 'all') {
        return { kind: 'list', items: (await client.tasks.list(query)).map(taskOutput) };
      }
      const read = await take(client.tasks.all(query), options.maxItems);
      return { kind: 'list', items: read.items.map(taskOutput), coverage: { complete: read.complete } };
    }
    case 'task':
      return { kind: 'item', item: taskOutput(await client.tasks.get(values.taskId as number)) };
    case 'annotatedSnapshot': {
      // Objects and format go to core as given: core refuses a bad value naming it, before any request.
      const annotateOptions: AnnotatedSnapshotOptions = {
        annotate: sharedAnnotator(),
        ...mediaWait(options),
      };
      if (values.objects !== undefined)
        annotateOptions.objects = values.objects as AnnotatedSnapshotOptions['objects'];
      if (values.format !== undefined)
        annotateOptions.format = values.format as AnnotatedSnapshotOptions['format'];
      const annotated = await client.media.annotatedSnapshot(values.source as MediaSource, annotateOptions);
      return {
        kind: 'file',
        data: annotated.data,
        contentType: annotated.contentType,
        fileName: annotated.fileName,
        annotation: { width: annotated.width, height: annotated.height, drawn: annotated.drawn },
      };
    }
    case 'snapshot':
    case 'clip': {
      const download = await client.media.download(
        values.source as MediaSource,
        operation === 'snapshot' ? 'image' : 'video',
        mediaWait(options),
      );
      return {
        kind: 'file',
        data: await toBuffer(download.data),
        contentType: download.contentType,
        fileName: download.fileName,
      };
    }
  }
}
