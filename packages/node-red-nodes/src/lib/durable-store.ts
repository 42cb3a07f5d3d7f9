import { homedir } from 'node:os';
import { join } from 'node:path';
import type { PositionStore, TaskWatchStore } from '@observation-service/core';
import { type DefaultContextStore, defaultContextStore } from './context-storage.js';
import type { ContextStore, Node, NodeRedApi } from './node-red-api.js';
import { StateFile, stateFilePath } from './state-file.js';

/** What a durable store needs of Node-RED: its settings, and the flows deployed. */
export interface DurableHost {
  settings: NodeRedApi['settings'];
  nodes: Pick<NodeRedApi['nodes'], 'eachNode'>;
}

/** Where a node's state is kept. */
export type DurableLocation =
  /** The node's context, in the default store, which is persistent (localfilesystem or a custom module). */
  | { kind: 'context'; store: DefaultContextStore }
  /** `<userDir>/observation-state/<node id>.json`, when the default context store is memory only. */
  | { kind: 'file'; path: string };

/**
 * A small JSON state of one node that survives a restart of Node-RED, on a default install too.
 * `load` (once, when the node starts) gives what was saved last, or undefined; it rejects when the
 * stored state cannot be used (a corrupt file, moved aside so that it is reported once). `save`
 * keeps a value (throwing or rejecting what the storage refused). Deleting the node deletes its
 * state; a redeploy, a restart or disabling the node or its flow keeps it, as Node-RED does with
 * persistent context.
 */
export interface DurableStore {
  readonly location: DurableLocation;
  load(): Promise<unknown>;
  save(value: unknown): void | Promise<void>;
}

/** Context key of the events node's position (core's, opaque here). */
export const POSITION_KEY = 'observation-position';
/** Where versions before the position kept a `{ time, id }` cursor; core migrates it once. */
export const LEGACY_CURSOR_KEY = 'observation-cursor';
/** Context key of the task watch's last known statuses (core's, opaque here). */
export const TASK_WATCH_KEY = 'observation-task-watch';

function contextGet(context: ContextStore, key: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    context.get(key, (error, value) => (error ? reject(error) : resolve(value))),
  );
}

function contextSet(context: ContextStore, key: string, value: unknown): Promise<void> {
  return new Promise((resolve, reject) =>
    context.set(key, value, (error) => (error ? reject(error) : resolve())),
  );
}

/**
 * State files that are, in this process, the only copy on disk of a node's state: written (or
 * read) because a caching context store held nothing for the node when it started. The context's
 * value beside them may still be in that store's cache only, after a redeploy too.
 */
const filesBesideCache = new Set<string>();

/** Whether the flows being deployed still hold the node (disabled counts), or it was deleted. */
function stillDeployed(node: Node, host: DurableHost): boolean {
  // Inside a subflow instance the node's id is derived; its definition's id is the alias.
  const ids = new Set([node.id, node._alias]);
  let found = false;
  host.nodes.eachNode((deployed) => {
    if (ids.has(deployed.id)) found = true;
  });
  return found;
}

/**
 * The durable state of `node` under `key`. The node's own context when the default context store
 * is persistent (`contextStorage` in settings.js); otherwise a file of its own under Node-RED's
 * user directory, because the memory store loses the state at every restart and even at a
 * redeploy. Writes are synchronous and cheap (a small file, temp + rename): callers save as often
 * as once a second. A state kept in a file before the context store was made persistent is read
 * once from the file, and the file goes once the context holds it. One store per node: the file
 * is the node's (a second key on the same node would find it holding the first and refuse it).
 *
 * A caching store (`localfilesystem`'s default) writes what was set only at its next flush, up to
 * `flushInterval` later, and offers nodes no way to flush. When it held nothing for the node at
 * the start, a kill before that flush would leave it nothing again at the next start, which then
 * begins afresh: so the first save goes to the file as well, at once. The file is read only when
 * the context holds nothing, and goes at a later start of Node-RED that finds the state in the
 * context (read from disk by then), or when the node is deleted.
 */
export function durableStore(node: Node, host: DurableHost, key: string): DurableStore {
  const context = defaultContextStore(host.settings.contextStorage);
  const userDir = host.settings.userDir ?? join(homedir(), '.node-red');
  const file = new StateFile(stateFilePath(userDir, node.id), { id: node.id, type: node.type, key });
  let deleted = false;
  /** Removes the file; a failure to is only told (the state itself is not at stake). */
  const removeFile = () => {
    try {
      file.remove();
    } catch (error) {
      node.warn(`${file.path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  node.on('close', (removed, done) => {
    // A close that does not delete the node comes back to its state; so do a disabled node or flow.
    if (removed && !stillDeployed(node, host)) {
      deleted = true;
      filesBesideCache.delete(file.path);
      removeFile();
    }
    done();
  });

  if (!context.persistent) {
    return {
      location: { kind: 'file', path: file.path },
      load: async () => file.read(),
      save(value) {
        // A save the closing node makes after its deletion would bring the file back.
        if (!deleted) file.write(value);
      },
    };
  }

  const nodeContext = node.context();
  const caching = (context.flushSeconds ?? 0) > 0;
  let fileToRetire = false;
  let firstSaveToFile = false;
  return {
    location: { kind: 'context', store: context },
    async load() {
      const value = await contextGet(nodeContext, key);
      if (value !== undefined) {
        // Not set in this process: the store read it from disk when Node-RED started, and it is
        // newer than any copy in the file.
        if (caching && !filesBesideCache.has(file.path)) removeFile();
        return value;
      }
      const kept = file.read();
      if (caching) {
        filesBesideCache.add(file.path);
        firstSaveToFile = true;
      } else fileToRetire = kept !== undefined;
      return kept;
    },
    async save(value) {
      if (deleted) return;
      let fileError: unknown;
      if (firstSaveToFile) {
        firstSaveToFile = false;
        try {
          file.write(value);
        } catch (error) {
          fileError = error;
        }
      }
      await contextSet(nodeContext, key, value);
      if (fileError !== undefined) throw fileError;
      if (fileToRetire) {
        fileToRetire = false;
        file.remove();
      }
    },
  };
}

/**
 * Core's `PositionStore` for an events node, kept durably (`durableStore`). In a persistent
 * context store, a position never saved falls back to the cursor of earlier versions, which core
 * migrates.
 */
export function durablePositionStore(
  node: Node,
  host: DurableHost,
): PositionStore & Pick<DurableStore, 'location'> {
  const store = durableStore(node, host, POSITION_KEY);
  return {
    location: store.location,
    async load() {
      const position = await store.load();
      if (position !== undefined || store.location.kind !== 'context') return position;
      return contextGet(node.context(), LEGACY_CURSOR_KEY);
    },
    save: (position) => store.save(position),
  };
}

/** Core's `TaskWatchStore` for a task watch node: its last known statuses, kept durably. */
export function durableTaskWatchStore(
  node: Node,
  host: DurableHost,
): TaskWatchStore & Pick<DurableStore, 'location'> {
  return durableStore(node, host, TASK_WATCH_KEY);
}
