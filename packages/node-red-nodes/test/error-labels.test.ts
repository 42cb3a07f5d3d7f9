import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catchNode, eventsNode, queryNode, serverNode, sink, source, tab } from './harness/flows.js';
import { type FlowNode, NodeRedHarness, nodeRedPackage } from './harness/node-red.js';

/**
 * Names of core's parameters and options that mean nothing in the editor: an error must name the
 * field by its label instead (From, Task id, Media, Service URL of the server config …).
 */
const internalNames =
  /\b(startTime|endTime|eventName|taskIds?|event(?:Type)?Id|locationId|cameraId|organizationId|imageUrl|videoUrl|image_url|video_url|trustedMediaOrigins|serviceId|wsUrl|waitMs|auth\.\w+|extended form)\b|Invalid (url|ids|limit|offset|objects|format|source)\b/;

type Msg = Record<string, unknown>;

describe(`every error of the query node, the events node and the server config names the field by its label (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 21, historySize: 20 });
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
  });

  /** Deploys source → query (with a Catch node), sends `msg`, and returns the message Catch got. */
  async function caught(query: Record<string, unknown>, msg: Msg = {}, server: Record<string, unknown> = {}) {
    const nodes: FlowNode[] = [
      tab(),
      serverNode(sim, server),
      source('in', ['query']),
      queryNode('query', ['out'], query),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ];
    await red.deploy(nodes);
    red.inject('in', msg);
    const [error] = await red.waitFor('errors', (list) => list.length > 0);
    return String((error?.error as { message?: string } | undefined)?.message);
  }

  // Each parameter a user can type (or send as a msg property) wrong, with the label it must name.
  const cases: Array<[string, Record<string, unknown>, Msg, string]> = [
    ['From', { operation: 'history', startTime: 'yesterday' }, {}, 'From'],
    ['To', { operation: 'history', endTime: 'nope' }, {}, 'To'],
    [
      'To before From (time zone kept)',
      { operation: 'history', startTime: '2024-05-02T10:00:00+08:00', endTime: '2024-05-01T10:00:00+08:00' },
      {},
      '"2024-05-01T10:00:00+08:00"',
    ],
    ['Event name', { operation: 'history' }, { eventName: 'x'.repeat(201) }, 'Event name'],
    ['Task id', { operation: 'task' }, { taskId: 'twelve' }, 'Task id'],
    ['Task id of history', { operation: 'history', taskId: '1.5' }, {}, 'Task id'],
    ['Event type id', { operation: 'eventType', eventId: 'x' }, {}, 'Event type id'],
    ['Event type id of history', { operation: 'history' }, { eventTypeId: '2.5' }, 'Event type id'],
    ['Location id', { operation: 'location', locationId: '-1' }, {}, 'Location id'],
    ['Camera id', { operation: 'tasks', cameraId: 'cam' }, {}, 'Camera id'],
    ['Organization', { operation: 'locations', organizationId: 'x' }, {}, 'Organization'],
    ['Record ids', { operation: 'history' }, { ids: '1,1' }, 'Record ids'],
    ['Record ids entry', { operation: 'history' }, { ids: '1,a' }, 'Record ids'],
    ['Limit', { operation: 'tasks', limit: '0' }, {}, 'Limit'],
    ['Offset', { operation: 'tasks', offset: '-1' }, {}, 'Offset'],
    ['Media (scheme)', { operation: 'snapshot' }, { payload: 'ftp://host/x.png' }, 'Media'],
    ['Media (foreign host)', { operation: 'clip' }, { payload: 'http://127.0.0.2:9/x.mp4' }, 'Media'],
    ['Media (event without one)', { operation: 'snapshot' }, { payload: { eventName: 'x' } }, 'Media'],
    [
      'Objects',
      { operation: 'annotatedSnapshot', objects: '{"name": "person"}', objectsType: 'json', mediaWait: '0' },
      { payload: '/apiserver/media/snapshots/1.png' },
      'Objects',
    ],
    ['Format', { operation: 'annotatedSnapshot' }, { payload: 'http://x/y.png', format: 'gif' }, 'Format'],
    ['Media wait', { operation: 'snapshot', mediaWait: 'soon' }, { payload: 'http://x/y.png' }, 'Media wait'],
  ];

  it.each(cases)('%s', async (_name, query, msg, label) => {
    const message = await caught(query, msg);
    expect(message).toContain(label);
    expect(message).not.toMatch(internalNames);
  });

  // Each server config field a user can type wrong: named with the config node it lives in.
  const serverCases: Array<[string, Record<string, unknown>, string]> = [
    ['Service URL scheme', { url: 'htp://host/observ' }, 'Service URL of the server config "simulator"'],
    ['Service URL garbage', { url: 'not an address' }, 'Service URL of the server config "simulator"'],
    ['WebSocket URL', { wsUrl: 'ftp://host' }, 'WebSocket URL of the server config "simulator"'],
    ['Service id', { serviceId: 'a b/c' }, 'Service id of the server config "simulator"'],
    [
      'Media hosts',
      { trustedMediaHosts: 'https://cdn.example.com/path' },
      'Media hosts of the server config "simulator"',
    ],
    ['Form', { form: 'newest' }, 'Form of the server config "simulator"'],
  ];

  // Credentials a restored or imported flow lacks: the field in the user's words, never core's
  // auth option ("{ token } or { email, password } …").
  const credentialCases: Array<[string, Record<string, unknown>, string]> = [
    ['no Email', { authType: 'login', credentials: { email: '', password: 'secret' } }, 'Email'],
    ['no Password', { authType: 'login', credentials: { email: 'a@b.c' } }, 'Password'],
    ['no Access token', { credentials: {} }, 'Access token'],
  ];

  it.each(credentialCases)('server config credentials: %s', async (_name, server, field) => {
    const message = await caught({ operation: 'tasks' }, {}, server);
    expect(message).toContain(
      `Invalid ${field} of the server config "simulator": got nothing; expected the ${field} of the service account: open the server config, enter it and deploy (Node-RED keeps it in its encrypted credentials file, flows_cred.json, so a flow copied or imported without that file has none)`,
    );
  });

  it.each(serverCases)('server config: %s', async (_name, server, label) => {
    const message = await caught({ operation: 'tasks' }, {}, server);
    expect(message).toContain(label);
    expect(message).not.toMatch(internalNames);
  });

  // Each events node field, as a flow edited by hand or imported may hold it (the editor's own
  // checks stop these in the dialog): the error names the field's label, never core's option.
  const eventsCases: Array<[string, Record<string, unknown>, string]> = [
    ['Pick', { taskMode: 'pick', tasks: ['x'] }, 'Invalid Tasks'],
    ['Task ids', { taskMode: 'ids', taskIds: '1, two' }, 'Invalid Task ids'],
    ['Confidence', { minConfidence: '2' }, 'Invalid Confidence'],
    ['Catch up', { lookBackMinutes: 'an hour' }, 'Invalid Catch up'],
    ['Late events', { allowedLateness: '7200' }, 'Invalid Late events'],
    ['Image wait', { attachSnapshot: true, mediaWait: 'soon' }, 'Invalid Image wait'],
  ];

  it.each(eventsCases)('events node: %s', async (_name, config, label) => {
    await red.deploy([
      tab(),
      serverNode(sim),
      eventsNode('events', ['out'], config),
      sink('out'),
      sink('errors'),
      catchNode('catch-node', 'errors'),
    ]);
    const [error] = await red.waitFor('errors', (list) => list.length > 0);
    const message = String((error?.error as { message?: string } | undefined)?.message);
    expect(message).toContain(label);
    expect(message).not.toMatch(internalNames);
    expect(message).not.toMatch(
      /\b(minConfidence|lookBackMs|allowedLatenessMs|lookBackMinutes|allowedLateness|mediaWait|tasks)\b/,
    );
  });
});
