import {
  HttpError,
  MediaMissingError,
  type ObservationClient,
  ObservationError,
} from '@observation-service/core';
import type { Translate } from './events-status.js';
import { withQueryField } from './field-labels.js';
import { asError } from './node-errors.js';
import type { Node, NodeMessage, NodeRedApi } from './node-red-api.js';
import { type ListCoverage, type QueryOptions, type QueryResult, runOperation } from './query-operations.js';
import {
  MESSAGE_PRECEDENCES,
  type MessagePrecedence,
  messageProperty,
  OPERATIONS,
  type Operation,
  resolveParameters,
} from './query-parameters.js';
import { isServerNode } from './server-node.js';
import { editorText } from './status-text.js';

/** Settings of an `observation query` node; each parameter also has a `<name>Type` (typedInput). */
export interface QueryConfig extends Record<string, unknown> {
  server?: string;
  operation?: string;
  pages?: string;
  maxItems?: string | number;
  output?: string;
  /**
   * `fill` or `override` (see `MessagePrecedence`). New nodes get `fill` from the editor; a node
   * saved before the setting existed has none and keeps the earlier `override`.
   */
  msgProperties?: string;
  /** Downloads: seconds to wait for a file not written yet (empty: core's default per file). */
  mediaWait?: string | number;
}

/** Core's longest media wait, in the field's seconds. */
const MAX_MEDIA_WAIT_SECONDS = 600;

/** The Media wait field in ms; undefined when empty, the bad value as text when out of range. */
function mediaWaitOf(config: QueryConfig): { ms: number | undefined } | { invalid: string } {
  const raw = config.mediaWait;
  if (raw === undefined || String(raw).trim() === '') return { ms: undefined };
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_MEDIA_WAIT_SECONDS) {
    return { invalid: String(raw) };
  }
  return { ms: Math.round(seconds * 1000) };
}

const DEFAULT_MAX_ITEMS = 1000;
/** Operations that download a file, and so read the Media wait field. */
const DOWNLOADS: readonly Operation[] = ['snapshot', 'annotatedSnapshot', 'clip'];

function queryOptions(config: QueryConfig, mediaWaitMs: number | undefined): QueryOptions {
  const max = Number(config.maxItems);
  return {
    pages: config.pages === 'all' ? 'all' : 'one',
    maxItems: Number.isInteger(max) && max > 0 ? max : DEFAULT_MAX_ITEMS,
    ...(mediaWaitMs === undefined ? {} : { mediaWaitMs }),
  };
}

/** What "all pages, up to a cap" says on the message: msg.complete, and for history msg.span and msg.missing. */
function withCoverage(msg: NodeMessage, result: QueryResult): NodeMessage {
  if (result.kind !== 'list' || !result.coverage) return msg;
  const { complete, span, missing } = result.coverage;
  const out: NodeMessage = { ...msg, complete };
  if (span) out.span = span;
  else delete out.span;
  if (missing) out.missing = missing;
  else delete out.missing;
  return out;
}

function outputMessages(input: NodeMessage, result: QueryResult, split: boolean): NodeMessage[] {
  const msg = withCoverage(input, result);
  switch (result.kind) {
    case 'item':
      return [{ ...msg, payload: result.item }];
    case 'file': {
      const out: NodeMessage = {
        ...msg,
        payload: result.data,
        contentType: result.contentType,
        filename: result.fileName,
      };
      if (result.annotation) out.annotation = result.annotation;
      return [out];
    }
    case 'list': {
      if (!split) return [{ ...msg, payload: result.items }];
      // msg.parts lets a join node put the items back together.
      const id = msg._msgid ?? '';
      return result.items.map((item, index) => ({
        ...msg,
        payload: item,
        parts: { id, index, count: result.items.length, type: 'array', len: 1 },
      }));
    }
  }
}

/**
 * The node's precedence, or the name of a bad value. `legacy`: the node was saved before the
 * setting existed, so it keeps the earlier behaviour and says once, when it matters, how to switch.
 */
function precedenceOf(
  config: QueryConfig,
): { precedence: MessagePrecedence; legacy: boolean } | { invalid: string } {
  const value = config.msgProperties;
  if (value === undefined) return { precedence: 'override', legacy: true };
  const precedence = MESSAGE_PRECEDENCES.find((candidate) => candidate === value);
  return precedence ? { precedence, legacy: false } : { invalid: String(value) };
}

/** True only when the service says there is no event type of this id (404); anything else is no proof. */
async function isUnknownEventType(client: ObservationClient, id: unknown): Promise<boolean> {
  try {
    await client.events.getType(id as number);
    return false;
  } catch (error) {
    return HttpError.isInstance(error) && error.status === 404;
  }
}

/** The once-per-deploy warning of a read the cap cut short, in the editor's words. */
function cappedWarning(coverage: ListCoverage, max: number, t: Translate): string {
  const { span, missing } = coverage;
  const rest =
    span && missing
      ? t(`observation-query.warnings.missing.${missing}`, { from: span.from, to: span.to })
      : t('observation-query.warnings.missing.items');
  return t('observation-query.warnings.capped', { max, rest });
}

/** Wires an `observation query` node: msg in, core call, msg(s) out, errors through done(err). */
export function setUpQueryNode(node: Node, config: QueryConfig, RED: NodeRedApi, t: Translate): void {
  const operation = OPERATIONS.find((candidate) => candidate === config.operation) as Operation | undefined;
  const mediaWait = mediaWaitOf(config);
  const options = queryOptions(config, 'ms' in mediaWait ? mediaWait.ms : undefined);
  const split = config.output === 'split';
  const precedence = precedenceOf(config);
  let legacyWarned = false;
  let cappedWarned = false;
  const unknownTypesWarned = new Set<string>();

  const evaluate = (value: unknown, type: string, msg: NodeMessage) =>
    new Promise<unknown>((resolve, reject) => {
      RED.util.evaluateNodeProperty(value, type, node, msg, (error, result) =>
        error ? reject(error) : resolve(result),
      );
    });

  node.on('input', (msg, send, done) => {
    const server = RED.nodes.getNode(String(config.server ?? ''));
    if (!isServerNode(server)) {
      node.status({ fill: 'red', shape: 'ring', text: editorText('observation-query.status.noServer') });
      done(new Error(t('observation-query.errors.noServer')));
      return;
    }
    if (!operation) {
      done(new Error(t('observation-query.errors.operation', { operation: String(config.operation) })));
      return;
    }
    if ('invalid' in precedence) {
      done(new Error(t('observation-query.errors.msgProperties', { value: precedence.invalid })));
      return;
    }
    if ('invalid' in mediaWait && DOWNLOADS.includes(operation)) {
      done(new Error(t('observation-query.errors.mediaWait', { value: mediaWait.invalid })));
      return;
    }
    node.status({ fill: 'blue', shape: 'dot', text: editorText('observation-query.status.running') });
    resolveParameters(operation, config, msg, evaluate, precedence.precedence)
      .then(({ values, overridden }) => {
        // Once per deploy, and only when the earlier precedence changed this query's result.
        if (precedence.legacy && overridden.length > 0 && !legacyWarned) {
          legacyWarned = true;
          const properties = overridden.map((parameter) => `msg.${messageProperty(parameter)}`);
          node.warn(t('observation-query.warnings.legacyOverride', { properties: properties.join(', ') }));
        }
        const client = server.client();
        return runOperation(client, operation, values, options).then(async (result) => {
          // An empty history by an event type id is often a record id typed into that field.
          const typeId = values.eventId;
          if (
            operation === 'history' &&
            result.kind === 'list' &&
            result.items.length === 0 &&
            typeId !== undefined &&
            !unknownTypesWarned.has(String(typeId)) &&
            (await isUnknownEventType(client, typeId))
          ) {
            unknownTypesWarned.add(String(typeId));
            node.warn(t('observation-query.warnings.unknownEventType', { value: String(typeId) }));
          }
          return result;
        });
      })
      .then(
        (result) => {
          const messages = outputMessages(msg, result, split);
          const coverage = result.kind === 'list' ? result.coverage : undefined;
          if (coverage && !coverage.complete) {
            // A count built on a cut read is wrong without a sign: the ring says so every time,
            // the sidebar once per deploy with what to do.
            node.status({
              fill: 'yellow',
              shape: 'ring',
              text: t('observation-query.status.capped', { max: options.maxItems }),
            });
            if (!cappedWarned) {
              cappedWarned = true;
              node.warn(cappedWarning(coverage, options.maxItems, t));
            }
          } else {
            node.status({});
          }
          send([messages]);
          done();
        },
        (error: unknown) => {
          // The server node closed its client under this query (a deploy or stop): Node-RED drops
          // every message still in the flow then, so this one is not a failure to catch; the log
          // says which message ended here.
          if (ObservationError.isInstance(error) && error.code === 'CLIENT_CLOSED') {
            node.status({});
            node.log(t('observation-query.log.stopped', { msgid: String(msg._msgid ?? '') }));
            done();
            return;
          }
          node.status({ fill: 'red', shape: 'ring', text: editorText('observation-query.status.error') });
          // A file still missing: core says which and how long it waited; the fix is this field.
          if (MediaMissingError.isInstance(error)) {
            done(
              Object.assign(
                new Error(t('observation-query.errors.mediaMissing', { message: error.message })),
                {
                  code: error.code,
                  cause: error,
                },
              ),
            );
            return;
          }
          done(asError(withQueryField(error, t)));
        },
      );
  });

  node.on('close', (_removed, done) => {
    node.status({});
    done();
  });
}
