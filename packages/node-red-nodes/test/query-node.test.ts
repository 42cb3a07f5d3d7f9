import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, queryNode, serverNode, sink, source, statusNode, tab } from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;

function errorMessage(msg: Msg | undefined): string {
  return String((msg?.error as { message?: string } | undefined)?.message);
}

describe(`observation query node (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, historySize: 60 });
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
    red.problems.length = 0;
    sim.control.reset();
  });

  /** Deploys source → query → sink with a Catch node, sends `msg`, and returns what came out. */
  async function run(query: Record<string, unknown>, msg: Msg = {}, expected = 1): Promise<Msg[]> {
    const nodes: FlowNode[] = [
      tab(),
      serverNode(sim),
      source('in', ['query']),
      queryNode('query', ['out'], query),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
      sink('status'),
      statusNode('status-node', 'status'),
    ];
    await red.deploy(nodes);
    red.inject('in', msg);
    return red.waitFor('out', (list) => list.length >= expected);
  }

  async function runFailing(query: Record<string, unknown>, msg: Msg = {}): Promise<Msg> {
    await run(query, msg, 0);
    const [caught] = await red.waitFor('errors', (list) => list.length > 0);
    expect(red.messages('out')).toEqual([]);
    return caught as Msg;
  }

  it('reads one page of event history with the editor limit, as one array', async () => {
    const [msg] = await run({ operation: 'history', limit: '5', limitType: 'num' }, { keep: 'me' });
    const events = msg?.payload as Array<{ eventName: string; taskId: number }>;
    expect(events).toHaveLength(5);
    expect(events[0]).toMatchObject({ eventName: expect.any(String), taskId: expect.any(Number) });
    expect(msg?.keep).toBe('me');
  });

  /** What the query node logged as warnings (node.warn, shown in the debug sidebar). */
  const warnings = () => red.problems.filter((problem) => problem.id === 'query' && problem.level === 30);

  /** Two tasks with events in the history, for filters whose effect shows in the result. */
  async function tasksInHistory(): Promise<[number, number]> {
    const [msg] = await run({ operation: 'history', limit: '100', limitType: 'num' });
    red.clear();
    const counts = new Map<number, number>();
    for (const event of (msg?.payload ?? []) as Array<{ taskId: number }>) {
      counts.set(event.taskId, (counts.get(event.taskId) ?? 0) + 1);
    }
    const [first, second] = [...counts.keys()];
    if (first === undefined || second === undefined) throw new Error('history of one task only');
    return [first, second];
  }

  it('a parameter set in the editor wins: a stray msg.limit or msg.taskId does not change the query', async () => {
    const [configured, stray] = await tasksInHistory();
    const [msg] = await run(
      { operation: 'history', limit: '2', limitType: 'num', taskId: String(configured), taskIdType: 'num' },
      { limit: 50, taskId: stray },
    );
    const events = msg?.payload as Array<{ taskId: number }>;
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThanOrEqual(2);
    expect(events.every((event) => event.taskId === configured)).toBe(true);
    // Passed on untouched, and no warning: this is the node's rule, not a legacy one.
    expect(msg).toMatchObject({ limit: 50, taskId: stray });
    expect(warnings()).toEqual([]);
  });

  it('a field left empty takes the msg property of the same name', async () => {
    const [, wanted] = await tasksInHistory();
    const [msg] = await run({ operation: 'history', limit: '', taskId: '' }, { limit: 3, taskId: wanted });
    const events = msg?.payload as Array<{ taskId: number }>;
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThanOrEqual(3);
    expect(events.every((event) => event.taskId === wanted)).toBe(true);
  });

  it('a node saved before the setting keeps msg properties winning, and warns once naming them', async () => {
    const [configured, fromMessage] = await tasksInHistory();
    // What an earlier version saved: no msgProperties at all.
    const legacy = {
      operation: 'history',
      msgProperties: undefined,
      limit: '50',
      limitType: 'num',
      taskId: String(configured),
      taskIdType: 'num',
    };
    const [first] = await run(legacy, { limit: 2, taskId: fromMessage });
    const events = first?.payload as Array<{ taskId: number }>;
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThanOrEqual(2);
    expect(events.every((event) => event.taskId === fromMessage)).toBe(true);

    red.inject('in', { limit: 1 });
    const [, second] = await red.waitFor('out', (list) => list.length >= 2);
    expect(second?.payload).toHaveLength(1);
    // The warning of the first message is logged before its query runs; the second one adds none.
    const logged = warnings();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ type: 'observation-query' });
    expect(String(logged[0]?.msg)).toContain('msg.taskId, msg.limit overrode');
    expect(String(logged[0]?.msg)).toContain('fill only the fields left empty');
  });

  it('"override the fields set here", chosen in the editor, lets msg win without a warning', async () => {
    const [msg] = await run(
      { operation: 'history', msgProperties: 'override', limit: '50', limitType: 'num' },
      { limit: 3 },
    );
    expect(msg?.payload).toHaveLength(3);
    expect(warnings()).toEqual([]);
  });

  it('refuses an unknown msgProperties value, naming it', async () => {
    const caught = await runFailing({ operation: 'tasks', msgProperties: 'sometimes' });
    expect(errorMessage(caught)).toContain('msgProperties');
    expect(errorMessage(caught)).toContain('sometimes');
  });

  it('evaluates typedInput parameters against the message', async () => {
    const [msg] = await run({ operation: 'history', limit: 'wanted', limitType: 'msg' }, { wanted: 2 });
    expect(msg?.payload).toHaveLength(2);
  });

  it('takes ids picked from the editor lists (typedInput type "pick")', async () => {
    const task = sim.world.tasks[2];
    const [msg] = await run({ operation: 'task', taskId: String(task?.id), taskIdType: 'pick' });
    expect(msg?.payload).toMatchObject({ id: task?.id, name: task?.name });
  });

  it('reads all history pages up to the cap', async () => {
    const [msg] = await run({
      operation: 'history',
      pages: 'all',
      maxItems: 25,
      limit: '10',
      limitType: 'num',
    });
    expect(msg?.payload).toHaveLength(25);
    const ids = ((msg?.payload ?? []) as Array<{ id: number }>).map((event) => event.id);
    expect(new Set(ids).size).toBe(25);
  });

  it('all pages cut by the cap says so: msg.complete false, the span read and the older end missing; a yellow ring and one warning', async () => {
    // The simulator lists the newest first, as the service did (1,000 of 1,577 events).
    const everything = await run({ operation: 'history', pages: 'all', maxItems: 1000 });
    const all = (everything[0]?.payload ?? []) as Array<{ id: number; timestamp: string }>;
    expect(everything[0]).toMatchObject({ complete: true });
    expect(everything[0]?.missing).toBeUndefined();
    expect(warnings()).toEqual([]);
    red.clear();

    const query = { operation: 'history', pages: 'all', maxItems: 25, limit: '10', limitType: 'num' };
    const [msg] = await run(query, { complete: 'left over', missing: 'left over' });
    const payload = (msg?.payload ?? []) as Array<{ id: number }>;
    // The newest 25, and the message says the rest, older than span.from, were not read.
    expect(payload.map((event) => event.id)).toEqual(all.slice(0, 25).map((event) => event.id));
    const times = all.slice(0, 25).map((event) => Date.parse(event.timestamp));
    expect(msg).toMatchObject({
      complete: false,
      missing: 'older',
      span: {
        from: new Date(Math.min(...times)).toISOString(),
        to: new Date(Math.max(...times)).toISOString(),
      },
    });
    const ring = await red.waitFor('status', (list) =>
      list.some((entry) => (entry.status as { fill?: string }).fill === 'yellow'),
    );
    expect(ring.map((entry) => entry.status)).toContainEqual(
      expect.objectContaining({ fill: 'yellow', shape: 'ring', text: 'capped at 25: more not read' }),
    );
    const [warning] = warnings();
    expect(String(warning?.msg)).toMatch(/^At most \(25\) cut this read short: .*msg\.complete is false\./);
    const from = (msg?.span as { from?: string } | undefined)?.from;
    expect(String(warning?.msg)).toContain(`the older ones, before ${from}, were not read`);

    // The same deploy reads again: the message and the ring say it again, the sidebar does not.
    red.inject('in', {});
    await red.waitFor('out', (list) => list.length >= 2);
    expect(red.messages('out')[1]).toMatchObject({ complete: false });
    expect(warnings()).toHaveLength(1);
  });

  it('all pages of tasks: msg.complete false under the cap, true when every task was read', async () => {
    const [cut] = await run({ operation: 'tasks', pages: 'all', maxItems: 2 });
    expect(cut?.payload).toHaveLength(2);
    expect(cut).toMatchObject({ complete: false });
    // Tasks have no time: nothing about a span.
    expect(cut?.span).toBeUndefined();
    red.clear();
    const [whole] = await run({ operation: 'tasks', pages: 'all', maxItems: sim.world.tasks.length });
    expect(whole?.payload).toHaveLength(sim.world.tasks.length);
    expect(whole).toMatchObject({ complete: true });
    // One page: no claim either way.
    red.clear();
    const [page] = await run({ operation: 'tasks' });
    expect(page?.complete).toBeUndefined();
  });

  it('history by an Event type id no event type has warns that it matched none (a record id typed there)', async () => {
    const recordId = Math.max(...sim.world.eventTypes.map((type) => type.id)) + 5_000;
    const [msg] = await run({ operation: 'history', eventId: String(recordId), eventIdType: 'num' });
    expect(msg?.payload).toEqual([]);
    await red.waitFor('out', () => warnings().length > 0);
    expect(String(warnings()[0]?.msg)).toBe(
      `Event type id ${recordId} matched no event type of the service, so the history is empty. It is the id of an event type (an event's eventTypeId), not of an event record: to read given records, use Record ids.`,
    );
    // A known event type with events: no warning.
    red.problems.length = 0;
    red.clear();
    const [known] = await run({ operation: 'history', limit: '1', limitType: 'num' });
    const typeId = ((known?.payload ?? []) as Array<{ eventTypeId: number }>)[0]?.eventTypeId;
    red.clear();
    const [typed] = await run({ operation: 'history', eventId: String(typeId), eventIdType: 'num' });
    expect(((typed?.payload ?? []) as unknown[]).length).toBeGreaterThan(0);
    expect(warnings()).toEqual([]);
  });

  it('sends one message per task with msg.parts for a join node', async () => {
    const count = sim.world.tasks.length;
    const messages = await run({ operation: 'tasks', output: 'split' }, {}, count);
    expect(messages).toHaveLength(count);
    expect(messages.map((msg) => (msg.payload as { id: number }).id)).toEqual(
      sim.world.tasks.map((task) => task.id),
    );
    expect(messages.map((msg) => (msg.parts as { index: number; count: number }).index)).toEqual([
      ...Array(count).keys(),
    ]);
    expect(new Set(messages.map((msg) => (msg.parts as { id: string }).id)).size).toBe(1);
  });

  it('reads one task, one location, the locations and an event type', async () => {
    const task = sim.world.tasks[1];
    const [taskMsg] = await run({ operation: 'task', taskId: String(task?.id) });
    expect(taskMsg?.payload).toMatchObject({ id: task?.id, name: task?.name });
    red.clear();

    const location = sim.world.locations[0];
    const [locationMsg] = await run({ operation: 'location' }, { locationId: location?.id });
    expect(locationMsg?.payload).toMatchObject({ id: location?.id, name: location?.name });
    red.clear();

    const [locationsMsg] = await run({ operation: 'locations' });
    expect((locationsMsg?.payload as unknown[] | undefined)?.length).toBe(sim.world.locations.length);
    red.clear();

    const type = sim.world.eventTypes[0];
    const [typeMsg] = await run({ operation: 'eventType', eventId: String(type?.id), eventIdType: 'num' });
    expect(typeMsg?.payload).toMatchObject({ id: type?.id, name: type?.name });
  });

  it('one output shape (issue 34): a task from tasks and from task shares its fields in camelCase; an event ends with form', async () => {
    const snakeKeys = (record: object) => Object.keys(record).filter((key) => key.includes('_'));
    const task = sim.world.tasks[0];
    if (!task) throw new Error('no tasks');
    const [listMsg] = await run({ operation: 'tasks', pages: 'all' });
    const listed = ((listMsg?.payload ?? []) as Msg[]).find((entry) => entry.id === task.id);
    red.clear();
    const [detailMsg] = await run({ operation: 'task', taskId: String(task.id) });
    const detail = (detailMsg?.payload ?? {}) as Msg;
    red.clear();
    if (!listed) throw new Error('the task is not in the list');
    expect(snakeKeys(listed)).toEqual([]);
    expect(snakeKeys(detail)).toEqual([]);
    // Every field of the list form is in the detail under the same name, with the same value.
    expect(Object.keys(listed).filter((key) => !(key in detail))).toEqual([]);
    for (const key of [
      'id',
      'name',
      'status',
      'statusParsed',
      'eventTypeIds',
      'locationId',
      'cameraId',
      'cameraRtsp',
    ]) {
      expect([key, listed[key]]).toEqual([key, detail[key]]);
    }
    expect(listed.scheduler).toEqual({ type: task.scheduler.type });
    expect(detail.scheduler).toMatchObject({
      type: task.scheduler.type,
      startTime: task.scheduler.start_time,
    });
    expect(listed).toMatchObject({ locationId: task.location_id, cameraId: task.camera_id });

    const location = sim.world.locations[0];
    const [locationMsg] = await run({ operation: 'location' }, { locationId: location?.id });
    expect(locationMsg?.payload).toMatchObject({
      id: location?.id,
      organizationId: location?.organization_id,
    });
    expect(snakeKeys(locationMsg?.payload as object)).toEqual([]);
    red.clear();

    const [historyMsg] = await run({ operation: 'history', limit: '5', limitType: 'num' });
    const events = (historyMsg?.payload ?? []) as Msg[];
    expect(events).toHaveLength(5);
    for (const event of events) {
      expect(typeof event.eventTypeId).toBe('number');
      expect(event).not.toHaveProperty('eventId');
      expect(
        Object.keys(event)
          .filter((key) => key !== 'extra')
          .at(-1),
      ).toBe('form');
    }
  });

  it('Event type id comes from msg.eventTypeId (an event message), or msg.eventId as flows before it set', async () => {
    const [first, second] = sim.world.eventTypes;
    if (!first || !second) throw new Error('too few event types');
    const [fromEvent] = await run({ operation: 'eventType' }, { eventTypeId: first.id, eventId: second.id });
    expect(fromEvent?.payload).toEqual({ id: first.id, name: first.name, description: first.description });
    red.clear();
    const [fromOld] = await run({ operation: 'eventType' }, { eventId: second.id });
    expect(fromOld?.payload).toMatchObject({ id: second.id });
  });

  it('downloads the snapshot and the clip of an event from msg.payload', async () => {
    const [event] = await sim.control.emit(1);
    const [snapshot] = await run({ operation: 'snapshot' }, { payload: event });
    expect(Buffer.isBuffer(snapshot?.payload)).toBe(true);
    expect(String(snapshot?.contentType)).toMatch(/^image\//);
    expect(String(snapshot?.filename)).toMatch(/\.(png|jpe?g)$/);
    red.clear();

    const [clip] = await run({ operation: 'clip' }, { payload: event });
    expect(Buffer.isBuffer(clip?.payload)).toBe(true);
    expect((clip?.payload as Buffer | undefined)?.length).toBeGreaterThan(0);
    expect(String(clip?.contentType)).toMatch(/^video\//);
  });

  it('waits for a snapshot not written yet, up to Media wait; then Catch hears it was not written yet and which field to raise', {
    timeout: 30_000,
  }, async () => {
    // Written 1.5 s after publication, as a real service writes it: the default wait (10 s) gets
    // it, for the event and for its bare URL alike.
    const [late, other] = await sim.control.emit(2, { latenessMs: 0, snapshotDelayMs: 1_500 });
    const [snapshot] = await run({ operation: 'snapshot' }, { payload: late });
    expect(String(snapshot?.contentType)).toMatch(/^image\//);
    red.clear();
    const [byUrl] = await run({ operation: 'annotatedSnapshot' }, { payload: other });
    expect(Buffer.isBuffer(byUrl?.payload)).toBe(true);
    red.clear();

    const [never] = await sim.control.emit(1, { latenessMs: 0, snapshotDelayMs: 'never' });
    const caught = await runFailing({ operation: 'snapshot', mediaWait: '1' }, { payload: never });
    expect(errorMessage(caught)).toMatch(
      /not there after waiting \d\.\d s \(the service had not written it yet\)/,
    );
    expect(errorMessage(caught)).toContain('raise Media wait');
    expect(errorMessage(caught)).not.toContain(sim.token);
    expect((caught.error as { code?: string }).code).toBe('MEDIA_MISSING');
    red.clear();

    const refused = await runFailing({ operation: 'clip', mediaWait: '601' }, { payload: never });
    expect(errorMessage(refused)).toContain('Media wait: "601" is not a number of seconds from 0 to 600');
  });

  it('a query still running when the flow stops ends quietly: no error to Catch or the log, one info line naming the msg', {
    timeout: 30_000,
  }, async () => {
    // A snapshot never written, waited for up to 60 s: the query is in flight when the deploy comes.
    const [never] = await sim.control.emit(1, { latenessMs: 0, snapshotDelayMs: 'never' });
    const before = sim.control.stats().requests;
    await run({ operation: 'snapshot', mediaWait: '60' }, { payload: never, _msgid: 'cut-by-deploy' }, 0);
    await waitUntil(() => sim.control.stats().requests > before, 10_000, 'the first look for the snapshot');
    const stoppedAt = Date.now();
    await red.deploy([]);
    await waitUntil(
      () => red.notes.some((note) => note.id === 'query' && String(note.msg).includes('cut-by-deploy')),
      10_000,
      'the info line of the query the deploy stopped',
    );
    // The 60 s wait did not hold the deploy, and the cut was no failure (it was a NETWORK_ERROR).
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    expect(red.problems.filter((problem) => problem.id === 'query')).toEqual([]);
    expect(red.messages('errors')).toEqual([]);
  });

  it('sends a bad parameter to Catch with core’s message naming the field and value', async () => {
    const caught = await runFailing({ operation: 'task' }, { taskId: 'twelve' });
    // Named by the field's label (left empty here, it took msg.taskId, as the help says).
    expect(errorMessage(caught)).toContain('Invalid Task id: got "twelve"');
    expect(caught.error).toMatchObject({ source: { id: 'query', type: 'observation-query' } });
  });

  it('sends an unknown id and server errors to Catch, with the incoming msg', async () => {
    const caught = await runFailing({ operation: 'task' }, { taskId: 987654, marker: 1 });
    expect(errorMessage(caught)).toMatch(/404/);
    expect(caught.marker).toBe(1);
    red.clear();

    sim.control.failNext(10, 503);
    const failed = await runFailing({ operation: 'tasks' });
    expect(errorMessage(failed)).toMatch(/503/);
    expect(errorMessage(failed)).not.toContain(sim.token);
  });

  it('reports a missing server config to Catch', async () => {
    const caught = await runFailing({ operation: 'tasks', server: 'nowhere' });
    expect(errorMessage(caught)).toContain('observation-server');
  });
});
