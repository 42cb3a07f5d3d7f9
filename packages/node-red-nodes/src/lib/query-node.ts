import type { Translate } from './events-status.js';
import type { Node, NodeMessage, NodeRedApi } from './node-red-api.js';
import { type QueryOptions, type QueryResult, runOperation } from './query-operations.js';
import { OPERATIONS, type Operation, resolveParameters } from './query-parameters.js';
import { isServerNode } from './server-node.js';

/** Settings of an `observation query` node; each parameter also has a `<name>Type` (typedInput). */
export interface QueryConfig extends Record<string, unknown> {
  server?: string;
  operation?: string;
  pages?: string;
  maxItems?: string | number;
  output?: string;
}

const DEFAULT_MAX_ITEMS = 1000;

function queryOptions(config: QueryConfig): QueryOptions {
  const max = Number(config.maxItems);
  return {
    pages: config.pages === 'all' ? 'all' : 'one',
    maxItems: Number.isInteger(max) && max > 0 ? max : DEFAULT_MAX_ITEMS,
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

/** Wires an `observation query` node: msg in, core call, msg(s) out, errors through done(err). */
export function setUpQueryNode(node: Node, config: QueryConfig, RED: NodeRedApi, t: Translate): void {
  const operation = OPERATIONS.find((candidate) => candidate === config.operation) as Operation | undefined;
  const options = queryOptions(config);
  const split = config.output === 'split';

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
    node.status({ fill: 'blue', shape: 'dot', text: t(`observation-query.status.running`) });
    resolveParameters(operation, config, msg, evaluate)
      .then((values) => runOperation(server.client(), operation, values, options))
      .then(
        (result) => {
          const messages = outputMessages(msg, result, split);
          node.status({});
          send([messages]);
          done();
        },
        (error: unknown) => {
          node.status({ fill: 'red', shape: 'ring', text: t('observation-query.status.error') });
          done(error instanceof Error ? error : new Error(String(error)));
        },
      );
  });

  node.on('close', (_removed, done) => {
    node.status({});
    done();
  });
}
