import type { ClientCore } from '../context/client-core.js';
import { readInTurn } from '../history/read-in-turn.js';
import { download } from '../media/download.js';
import type { MediaDownload } from '../media-download.js';
import type { WebSocketConstructor } from '../ports.js';
import type { RealtimeContext } from '../realtime/context.js';
import { historyRaw } from '../resources/events.js';
import { readAll } from '../resources/read-list.js';

/**
 * Tasks whose history one catch-up window reads at once. Windows are read up to
 * `backfillConcurrency` (3) at a time, so a catch-up keeps up to 12 requests in flight: a busy
 * second of several tasks is read in about the time of its busiest task, not of all in turn.
 */
const tasksReadAtOnce = 4;

/**
 * Builds what the realtime subscription needs from the client: addresses, service id, the form
 * knowledge shared with REST, tokens, raw history for backfill, the task list, and the ports.
 */
export function createRealtimeContext(core: ClientCore, WebSocket: WebSocketConstructor): RealtimeContext {
  return {
    wsBaseUrl: core.addresses.wsUrl,
    serviceId: core.http.serviceId,
    form: core.form.configured,
    rememberForm: (form) => core.form.remember(form),
    knownForm: () => core.form.known(),
    getToken: (opts) => {
      // The same renewal REST uses after a 401: forget the refused token (a no-op when another
      // socket or request already replaced it), then one single-flight login for every waiter.
      if (opts?.rejected !== undefined) core.tokens.invalidate(opts.rejected);
      return core.tokens.get(opts?.signal ? { signal: opts.signal } : {});
    },
    canRefreshToken: core.tokens.canRefresh,
    async *fetchHistory(query, signal) {
      if (query.endTime && query.endTime.getTime() < query.startTime.getTime()) return;
      // The spec's task_id filter takes one id: several tasks are read at once, and handed on
      // one after another (each task's rows in the order the service listed them).
      const taskIds: Array<number | undefined> = query.taskIds === 'all' ? [undefined] : query.taskIds;
      const sources = taskIds.map(
        (taskId) => (taskSignal: AbortSignal) =>
          historyRaw(core, { startTime: query.startTime, endTime: query.endTime, taskId }, taskSignal),
      );
      for await (const page of readInTurn(sources, tasksReadAtOnce, signal)) yield* page;
    },
    async listTaskIds(signal) {
      const ids: number[] = [];
      for await (const task of readAll<{ id: number }>(core, '/tasks', {}, 0, undefined, signal))
        ids.push(task.id);
      return ids;
    },
    downloadImage: (event, options) =>
      download(core, event, 'image', options) as Promise<MediaDownload<Buffer>>,
    WebSocket,
    clock: core.clock,
    logger: core.logger,
  };
}
