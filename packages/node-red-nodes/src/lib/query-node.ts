import { MediaMissingError } from '@observation-service/core';
import type { Translate } from './events-status.js';
import { withQueryField } from './field-labels.js';
import { asError } from './node-errors.js';
import type { Node, NodeMessage, NodeRedApi } from './node-red-api.js';
import { type QueryOptions, type QueryResult, runOperation } from './query-operations.js';
import {
  MESSAGE_PRECEDENCES,
  type MessagePrecedence,
  messageProperty,
  OPERATIONS,
  type Operation,
  resolveParameters,
} from './query-parameters.js';
import { isServerNode } from './server-node.js';

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

function outputMessages(msg: NodeMessage, result: QueryResult, split: boolean): NodeMessage[] {
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

/** Wires an `observation query` node: msg in, core call, msg(s) out, errors through done(err). */
export function setUpQueryNode(node: Node, config: QueryConfig, RED: NodeRedApi, t: Translate): void {
  const operation = OPERATIONS.find((candidate) => candidate === config.operation) as Operation | undefined;
  const mediaWait = mediaWaitOf(config);
  const options = queryOptions(config, 'ms' in mediaWait ? mediaWait.ms : undefined);
  const split = config.output === 'split';
  const precedence = precedenceOf(config);
  let legacyWarned = false;

  const evaluate = (value: unknown, type: string, msg: NodeMessage) =>
    new Promise<unknown>((resolve, reject) => {
      RED.util.evaluateNodeProperty(value, type, node, msg, (error, result) =>
        error ? reject(error) : resolve(result),
      );
    });

  node.on('input', (msg, send, done) => {
    const server = RED.nodes.getNode(String(config.server ?? ''));
    if (!isServerNode(server)) {
      node.status({ fill: 'red', shape: 'ring', text: t('observation-query.status.noServer') });
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
    node.status({ fill: 'blue', shape: 'dot', text: t(`observation-query.status.running`) });
    resolveParameters(operation, config, msg, evaluate, precedence.precedence)
      .then(({ values, overridden }) => {
        // Once per deploy, and only when the earlier precedence changed this query's result.
        if (precedence.legacy && overridden.length > 0 && !legacyWarned) {
          legacyWarned = true;
          const properties = overridden.map((parameter) => `msg.${messageProperty(parameter)}`);
          node.warn(t('observation-query.warnings.legacyOverride', { properties: properties.join(', ') }));
        }
        return runOperation(server.client(), operation, values, options);
      })
      .then(
        (result) => {
          const messages = outputMessages(msg, result, split);
          node.status({});
          send([messages]);
          done();
        },
        (error: unknown) => {
          node.status({ fill: 'red', shape: 'ring', text: t('observation-query.status.error') });
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
