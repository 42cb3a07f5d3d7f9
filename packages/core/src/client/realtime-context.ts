import type { ClientCore } from '../context/client-core.js';
import { download } from '../media/download.js';
import type { MediaDownload } from '../media-download.js';
import type { WebSocketConstructor } from '../ports.js';
import type { RealtimeContext } from '../realtime/context.js';
import { historyRaw } from '../resources/events.js';
import { readAll } from '../resources/read-list.js';

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
      // The spec's task_id filter takes one id: several tasks are read one after another.
      const taskIds: Array<number | undefined> = query.taskIds === 'all' ? [undefined] : query.taskIds;
      for (const taskId of taskIds) {
        const filters = { startTime: query.startTime, endTime: query.endTime, taskId };
        for await (const page of historyRaw(core, filters, signal)) yield* page;
      }
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
