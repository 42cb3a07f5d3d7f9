/**
 * `POST {siteUrl}/__control/<action>` with a JSON body: `control` for other processes (the demo,
 * Node-RED and n8n end-to-end tests). Unauthenticated on purpose: it exists only on the
 * simulator, which listens on 127.0.0.1 unless told otherwise. `GET` works for `stats` and `info`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimulatorControl } from '../control.js';
import type { HistoryTies } from '../events/event-log.js';
import type { MalformedKind } from '../realtime/malformed-frames.js';
import type { ServerContext } from '../server-context.js';
import type { TaskInput } from '../world/world-state.js';
import { HttpProblem, sendJson } from './http-problem.js';
import { readJsonBody } from './read-body.js';

export interface ControlInfo {
  siteUrl: string;
  apiUrl: string;
  wsUrl: string;
}

type Body = Record<string, unknown>;
type Action = (body: Body) => unknown;

const READ_ONLY = new Set(['stats', 'info']);

export function controlActions(
  ctx: ServerContext,
  control: SimulatorControl,
  info: ControlInfo,
): Record<string, Action> {
  return {
    dropConnections: () => control.dropConnections(),
    refuseConnections: (b) => control.refuseConnections(num(b, 'ms')),
    halfOpen: () => control.halfOpen(),
    closeWith: (b) => control.closeWith(num(b, 'code'), optionalString(b, 'reason')),
    sendMalformed: (b) => control.sendMalformed(string(b, 'kind') as MalformedKind, optionalNum(b, 'count')),
    failNext: (b) =>
      control.failNext(num(b, 'count'), num(b, 'status'), {
        retryAfterSeconds: optionalNum(b, 'retryAfterSeconds'),
      }),
    delayResponses: (b) => control.delayResponses(num(b, 'ms')),
    delayUpgrades: (b) => control.delayUpgrades(num(b, 'ms')),
    setHistoryLag: (b) => control.setHistoryLag(num(b, 'ms')),
    setHistoryTies: (b) => control.setHistoryTies(string(b, 'ties') as HistoryTies),
    expireTokens: () => ({ token: control.expireTokens() }),
    setTaskStatus: (b) => control.setTaskStatus(num(b, 'taskId'), string(b, 'status')),
    addTask: (b) =>
      control.addTask((typeof b.task === 'object' && b.task !== null ? b.task : b) as TaskInput),
    removeTask: (b) => control.removeTask(num(b, 'taskId')),
    setRate: (b) =>
      control.setRate(b.eventsPerSecond === undefined ? num(b, 'rate') : num(b, 'eventsPerSecond')),
    emit: async (b) => {
      const count = num(b, 'count');
      const taskIds = b.taskIds === undefined ? undefined : numberList(b, 'taskIds');
      const latenessMs = optionalNum(b, 'latenessMs');
      const snapshotDelayMs = optionalDelay(b, 'snapshotDelayMs');
      const clipDelayMs = optionalDelay(b, 'clipDelayMs');
      const like = optionalNum(b, 'like');
      const events = await control.emit(count, { taskIds, latenessMs, snapshotDelayMs, clipDelayMs, like });
      return { emitted: count, historySize: ctx.log.size, lastId: events.at(-1)?.id };
    },
    mediaReadyAt: (b) => ({ id: num(b, 'id'), ...control.mediaReadyAt(num(b, 'id')) }),
    cameraLatencyMs: (b) => ({
      cameraId: num(b, 'cameraId'),
      latencyMs: control.cameraLatencyMs(num(b, 'cameraId')),
    }),
    stats: () => control.stats(),
    reset: () => control.reset(),
    info: () => ({
      ...info,
      form: ctx.options.form,
      serviceId: ctx.options.serviceId,
      token: ctx.tokens.staticToken,
      email: ctx.options.credentials.email,
    }),
  };
}

export async function handleControl(
  req: IncomingMessage,
  res: ServerResponse,
  actions: Record<string, Action>,
  name: string,
): Promise<void> {
  const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
  if (!action) {
    throw new HttpProblem(404, `Unknown control action "${name}"; known: ${Object.keys(actions).join(', ')}`);
  }
  if (req.method !== 'POST' && !(req.method === 'GET' && READ_ONLY.has(name))) {
    throw new HttpProblem(405, `Use POST ${req.url}`, { allow: READ_ONLY.has(name) ? 'GET, POST' : 'POST' });
  }
  const raw = req.method === 'POST' ? await readJsonBody(req) : undefined;
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw new HttpProblem(400, 'The body must be a JSON object');
  }
  try {
    const result = await action((raw ?? {}) as Body);
    sendJson(res, 200, { ok: true, ...(result === undefined ? {} : { result }) });
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw new HttpProblem(400, error instanceof Error ? error.message : String(error));
  }
}

function num(body: Body, name: string): number {
  const value = body[name];
  if (typeof value !== 'number')
    throw new HttpProblem(400, `"${name}" must be a number, got ${JSON.stringify(value)}`);
  return value;
}

function optionalNum(body: Body, name: string): number | undefined {
  return body[name] === undefined ? undefined : num(body, name);
}

/** Milliseconds or "never" (JSON has no Infinity). */
function optionalDelay(body: Body, name: string): number | 'never' | undefined {
  return body[name] === 'never' ? 'never' : optionalNum(body, name);
}

function string(body: Body, name: string): string {
  const value = body[name];
  if (typeof value !== 'string')
    throw new HttpProblem(400, `"${name}" must be a string, got ${JSON.stringify(value)}`);
  return value;
}

function optionalString(body: Body, name: string): string | undefined {
  return body[name] === undefined ? undefined : string(body, name);
}

function numberList(body: Body, name: string): number[] {
  const value = body[name];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'number')) {
    throw new HttpProblem(400, `"${name}" must be an array of numbers, got ${JSON.stringify(value)}`);
  }
  return value as number[];
}
