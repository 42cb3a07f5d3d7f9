import WebSocket from 'ws';
import type { DeploymentForm } from '../../context/form-state.js';
import type { RealtimeContext, RealtimeHistoryQuery } from '../context.js';

/** The parts of a running simulator the realtime tests need. */
export interface SimulatorAddresses {
  apiUrl: string;
  wsUrl: string;
  token: string;
  serviceId: string;
}

export interface SimulatorContextOptions {
  form?: 'auto' | DeploymentForm;
  /** undefined = the simulator's; null = none (basic deployments know no service id). */
  serviceId?: string | null;
  /** Tokens handed out, in order; the last one repeats. Default: the simulator's current static token. */
  tokens?: string[];
  /** Decides the token per call instead (a client that keeps its token until forced to refresh). */
  token?: (forceRefresh: boolean) => string;
  canRefreshToken?: boolean;
  WebSocket?: RealtimeContext['WebSocket'];
}

export interface SimulatorContext extends RealtimeContext {
  /** Calls made through the context, for assertions. */
  calls: { getToken: number; forcedRefresh: number; history: number; taskLists: number };
}

/**
 * A RealtimeContext built straight from a simulator with plain fetch, independent of the REST
 * client, so the realtime tests exercise only realtime code against real sockets and HTTP.
 */
export function simulatorContext(
  sim: SimulatorAddresses,
  options: SimulatorContextOptions = {},
): SimulatorContext {
  const form = options.form ?? 'extended';
  const serviceId = options.serviceId === null ? undefined : (options.serviceId ?? sim.serviceId);
  let remembered: DeploymentForm | undefined;
  const tokens = options.tokens;
  const calls = { getToken: 0, forcedRefresh: 0, history: 0, taskLists: 0 };
  const currentForm = (): DeploymentForm | undefined => (form === 'auto' ? remembered : form);

  const get = async (
    path: string,
    params: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<unknown> => {
    const url = new URL(`${sim.apiUrl}${path}`);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const headers: Record<string, string> = { authorization: `Bearer ${sim.token}` };
    // The REST form follows the realtime form, as it does in a real deployment.
    if (currentForm() === 'extended' && serviceId) headers['x-service-id'] = serviceId;
    const response = await fetch(url, { headers, ...(signal ? { signal } : {}) });
    if (!response.ok)
      throw new Error(`GET ${path} failed with HTTP ${response.status}: ${await response.text()}`);
    return response.json();
  };

  return {
    calls,
    wsBaseUrl: sim.wsUrl,
    serviceId,
    form,
    rememberForm(next) {
      remembered = next;
    },
    knownForm: () => currentForm(),
    async getToken(request) {
      calls.getToken++;
      if (request?.rejected !== undefined) calls.forcedRefresh++;
      if (options.token) return options.token(request?.rejected !== undefined);
      // Read at call time: expireTokens() replaces the simulator's static token.
      if (!tokens) return sim.token;
      return tokens[Math.min(calls.getToken - 1, tokens.length - 1)] as string;
    },
    canRefreshToken: options.canRefreshToken ?? false,
    async *fetchHistory(query: RealtimeHistoryQuery, signal?: AbortSignal) {
      const limit = currentForm() === 'extended' ? 100 : 10_000;
      const taskFilters = query.taskIds === 'all' ? [undefined] : query.taskIds;
      for (const taskId of taskFilters) {
        const page = (offset: number) => {
          const params: Record<string, string> = {
            start_time: wireTime(query.startTime),
            limit: String(limit),
            offset: String(offset),
          };
          if (query.endTime) params.end_time = wireTime(query.endTime);
          if (taskId !== undefined) params.task_id = String(taskId);
          calls.history++;
          return get('/events/history', params, signal) as Promise<unknown[]>;
        };
        // The next page, at the offset this one proved, is requested while this one is consumed,
        // as the REST client does; only an empty page ends the paging (a short one proves nothing).
        let current = page(0);
        for (let offset = 0; ; ) {
          const events = await current;
          if (events.length === 0) break;
          offset += events.length;
          current = page(offset);
          // Never leave a rejected prefetch unhandled when the consumer stops early.
          current.catch(() => {});
          yield* events;
        }
      }
    },
    async listTaskIds(signal) {
      calls.taskLists++;
      const tasks = (await get('/tasks', { limit: '1000' }, signal)) as { id: number }[];
      return tasks.map((task) => task.id);
    },
    async downloadImage(event, request) {
      // Plain fetch like the rest of this context, without the client's media wait: the realtime
      // tests that need waiting for late media go through the client.
      const url = new URL(event.imageUrl ?? '');
      url.searchParams.set('auth_token', sim.token);
      const response = await fetch(url, request.signal ? { signal: request.signal } : {});
      if (!response.ok) throw new Error(`GET ${url.pathname} failed with HTTP ${response.status}`);
      const data = Buffer.from(await response.arrayBuffer());
      return { data, contentType: response.headers.get('content-type') ?? '', fileName: 'snapshot' };
    },
    WebSocket: options.WebSocket ?? (WebSocket as unknown as RealtimeContext['WebSocket']),
    clock: {
      now: () => Date.now(),
      sleep: (ms, signal) =>
        new Promise<void>((resolve, reject) => {
          if (signal?.aborted) return reject(signal.reason);
          const onAbort = () => {
            clearTimeout(timer);
            reject(signal?.reason);
          };
          const timer = setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          }, ms);
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
    },
    logger: { debug() {}, info() {}, warn() {} },
  };
}

function wireTime(date: Date): string {
  return date.toISOString().slice(0, 19);
}
