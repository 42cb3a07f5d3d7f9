// The demo's Node-RED flows: one tab, four groups (live events, person alert with annotated
// snapshot, hourly history report, task health watch), all using one observation-server config
// node that points at the simulator. The config node's email and password travel in its
// `credentials` property, which Node-RED moves into its encrypted flows_cred.json on deploy:
// flows.json never holds them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventsNodeSettings } from './events-node-settings.mjs';

export const TAB_ID = 'demo-tab';

/**
 * The demo's own nodes, refreshed at every start: every id it gives starts with `demo-`. Anything
 * else (a flow the user made or imported, a node the user added to a demo tab) is the user's and
 * is kept; an edit to one of the demo's own nodes is not.
 */
export function isDemoNode(node) {
  return typeof node.id === 'string' && node.id.startsWith('demo-');
}
export const SERVER_ID = 'demo-server';

/** Node ids the demo test (e2e/demo) reads through the admin API and the editor's comms socket. */
export const NODE_IDS = {
  liveEvents: 'demo-live-events',
  liveDebug: 'demo-live-debug',
  liveLine: 'demo-live-line',
  liveFile: 'demo-live-file',
  alertEvents: 'demo-alert-events',
  alertSnapshot: 'demo-alert-snapshot',
  alertFile: 'demo-alert-file',
  alertDebug: 'demo-alert-debug',
  reportInject: 'demo-report-inject',
  reportQuery: 'demo-report-query',
  reportDebug: 'demo-report-debug',
  watch: 'demo-watch',
  watchPoll: 'demo-watch-poll',
  watchDebug: 'demo-watch-debug',
  disconnectInject: 'demo-disconnect-inject',
  restoreInject: 'demo-restore-inject',
  errorsDebug: 'demo-errors-debug',
};

/**
 * What the built Node-RED package offers, read from its dist: the demo uses the annotated
 * snapshot operation and a task watch node when the package has them, and says so when not.
 */
export function detectFeatures(packageDir) {
  const features = { annotatedOperation: undefined, taskWatchType: undefined };
  const catalog = join(packageDir, 'dist', 'nodes', 'locales', 'en-US', 'observation-query.json');
  if (existsSync(catalog)) {
    const operations = JSON.parse(readFileSync(catalog, 'utf8'))['observation-query']?.operation ?? {};
    features.annotatedOperation = Object.keys(operations).find((key) => /annotat/i.test(key));
  }
  const nodes = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))['node-red']?.nodes ?? {};
  // Declared and built: a type in package.json whose file is missing would stop every flow.
  features.taskWatchType = Object.keys(nodes).find(
    (type) => /watch|health/i.test(type) && existsSync(join(packageDir, nodes[type])),
  );
  return features;
}

/** Every query-node parameter, empty, so the editor shows the node exactly as a new one. */
const emptyQueryParameters = Object.fromEntries(
  [
    'taskId',
    'eventId',
    'eventName',
    'locationId',
    'cameraId',
    'organizationId',
    'startTime',
    'endTime',
    'ids',
    'limit',
    'offset',
  ].flatMap((name) => [
    [name, ''],
    [`${name}Type`, 'str'],
  ]),
);

function events(id, name, x, y, wires, overrides = {}) {
  return {
    id,
    type: 'observation-events',
    z: TAB_ID,
    name,
    server: SERVER_ID,
    ...eventsNodeSettings,
    x,
    y,
    wires: [wires],
    ...overrides,
  };
}

function query(id, name, operation, x, y, wires, overrides = {}) {
  return {
    id,
    type: 'observation-query',
    z: TAB_ID,
    name,
    server: SERVER_ID,
    operation,
    pages: 'one',
    maxItems: 1000,
    output: 'array',
    source: 'payload',
    sourceType: 'msg',
    ...emptyQueryParameters,
    objects: '',
    objectsType: 'json',
    format: '',
    // A new query node's setting: a field set here wins, msg properties fill the empty ones.
    msgProperties: 'fill',
    mediaWait: '',
    x,
    y,
    wires: [wires],
    ...overrides,
  };
}

function debug(id, name, x, y, complete, overrides = {}) {
  const whole = complete === 'true';
  return {
    id,
    type: 'debug',
    z: TAB_ID,
    name,
    active: true,
    tosidebar: true,
    console: false,
    tostatus: true,
    complete,
    targetType: whole ? 'full' : 'msg',
    statusVal: 'topic',
    statusType: 'msg',
    x,
    y,
    wires: [],
    ...overrides,
  };
}

function fn(id, name, x, y, func, wires, outputs = 1) {
  return {
    id,
    type: 'function',
    z: TAB_ID,
    name,
    func,
    outputs,
    timeout: 0,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    x,
    y,
    wires: outputs === 1 ? [wires] : wires,
  };
}

function inject(id, name, x, y, wires, overrides = {}) {
  return {
    id,
    type: 'inject',
    z: TAB_ID,
    name,
    props: [{ p: 'payload' }],
    repeat: '',
    crontab: '',
    once: false,
    onceDelay: 0.1,
    topic: '',
    payload: '',
    payloadType: 'date',
    x,
    y,
    wires: [wires],
    ...overrides,
  };
}

function comment(id, name, info, x, y) {
  return { id, type: 'comment', z: TAB_ID, name, info, x, y, wires: [] };
}

function group(id, name, nodes, box, color) {
  return {
    id,
    type: 'group',
    z: TAB_ID,
    name,
    style: { label: true, stroke: color, fill: color, 'fill-opacity': '0.12', color: '#3f3f3f' },
    nodes: nodes.map((node) => node.id),
    ...box,
  };
}

// Layout: the editor sizes a node from its label (Node-RED's view: 20 px steps of label + icon
// and port room, at least 100 px), so rows are laid out from an estimate of that width to keep
// the groups' left edges and the gaps between nodes even.
const CHAR_WIDTH = 6.6;
const BUTTON_WIDTH = 26;
const noInput = new Set(['inject', 'observation-events', 'catch', 'comment']);

function nodeWidth(node) {
  const label = node.name || node.type;
  const room = 50 + (noInput.has(node.type) ? 0 : 7);
  return Math.max(100, 20 * Math.ceil((label.length * CHAR_WIDTH + room) / 20));
}

/** Places the nodes left to right on one row, starting at `left`. */
function row(nodes, y, left = 100, gap = 40) {
  let cursor = left;
  for (const node of nodes) {
    if (node.type === 'inject') cursor += BUTTON_WIDTH;
    const width = nodeWidth(node);
    node.x = Math.round(cursor + width / 2);
    node.y = y;
    cursor += width + gap;
    if (node.type === 'debug') cursor += BUTTON_WIDTH;
  }
  return cursor;
}

function inGroup(groupId, nodes) {
  return nodes.map((node) => ({ ...node, g: groupId }));
}

const alertText = `// The alert a chat or e-mail node would send; the annotated snapshot follows as msg.payload.
const event = msg.payload;
// The person the events node's filter let the event through for (surest first).
const person = msg.matched[0];
msg.topic = event.eventName;
msg.alert = \`Person (\${Math.round(person.confidence * 100)} %) on task \${event.taskId} at \${event.timestamp}: \${event.eventName}\`;
msg.event = event;
return msg;`;

// Example 07's line: the message goes on with its ids, so the events node learns when the file
// node has written it.
const eventLine = `// One line per event; the events node counts it as handled once the file node has written it.
const event = msg.payload;
msg.payload = [new Date(event.occurredAt).toISOString(), 'task', msg.taskId, msg.topic, 'event', event.id ?? ''].join(' ');
return msg;`;

const reportCount = `// Events of the last hour per event name, busiest first.
const counts = {};
for (const event of msg.payload) counts[event.eventName] = (counts[event.eventName] || 0) + 1;
// msg.complete is false when the query's At most cut the read: then only msg.span is counted.
msg.topic = msg.complete === false
  ? \`\${msg.payload.length} events from \${msg.span.from} (capped: the hour has more)\`
  : \`\${msg.payload.length} events in the last hour\`;
msg.payload = Object.fromEntries(Object.entries(counts).sort((a, b) => b[1] - a[1]));
return msg;`;

// Used only when the package has no task watch node: the same comparison, in a function node.
const statusChanges = `// Compares each task's status with the previous poll (kept in flow context).
const previous = flow.get('taskStatus') || {};
const current = {};
for (const task of msg.payload) {
  current[task.id] = task.status;
  const before = previous[task.id];
  if (before !== undefined && before !== task.status) {
    node.send({ topic: task.name, payload: { taskId: task.id, taskName: task.name, previous: before, current: task.status } });
  }
}
flow.set('taskStatus', current);
node.status({ fill: 'green', shape: 'dot', text: \`\${msg.payload.length} tasks watched\` });
return null;`;

/**
 * @param {{
 *   sim: { siteUrl: string, serviceId: string, credentials: { email: string, password: string } },
 *   alertFile: string, eventsLog: string, taskWatchSeconds: number,
 *   features: { annotatedOperation?: string, taskWatchType?: string },
 * }} options `eventsLog`: the file flow 1 appends a line per event to
 */
export function demoFlows({ sim, alertFile, eventsLog, taskWatchSeconds, features }) {
  const ids = NODE_IDS;
  const control = (action) => `${sim.siteUrl}/__control/${action}`;

  const live = inGroup('demo-g-live', [
    // Handled when the flow is done (the line written): a stop or kill of Node-RED loses none.
    events(ids.liveEvents, 'all tasks, live', 170, 100, [ids.liveDebug, ids.liveLine], { ackMode: 'done' }),
    // A count, not a sidebar entry per second: those pushed a one-off error report out of the
    // sidebar's 100 messages within two minutes. Ticking its debug window shows each event.
    debug(ids.liveDebug, 'live events', 440, 100, 'payload', { tosidebar: false, statusType: 'counter' }),
    fn(ids.liveLine, 'one line per event', 0, 0, eventLine, [ids.liveFile]),
    {
      id: ids.liveFile,
      type: 'file',
      z: TAB_ID,
      name: 'append to live-events.log',
      filename: eventsLog,
      filenameType: 'str',
      appendNewline: true,
      createDir: true,
      overwriteFile: 'false',
      encoding: 'utf8',
      x: 0,
      y: 0,
      wires: [[]],
    },
  ]);

  const snapshotOperation = features.annotatedOperation ?? 'snapshot';
  const alert = inGroup('demo-g-alert', [
    events(ids.alertEvents, 'person ≥ 80 %', 170, 220, ['demo-alert-text'], {
      objectNames: 'person',
      minConfidence: '0.8',
    }),
    fn('demo-alert-text', 'alert text', 370, 220, alertText, [ids.alertSnapshot]),
    query(
      ids.alertSnapshot,
      features.annotatedOperation ? 'annotated snapshot' : 'snapshot',
      snapshotOperation,
      560,
      220,
      [ids.alertFile],
    ),
    {
      id: ids.alertFile,
      type: 'file',
      z: TAB_ID,
      name: 'save as .png',
      filename: alertFile,
      filenameType: 'str',
      appendNewline: false,
      createDir: true,
      overwriteFile: 'true',
      encoding: 'none',
      x: 770,
      y: 220,
      wires: [[ids.alertDebug]],
    },
    debug(ids.alertDebug, 'alert', 960, 220, 'alert'),
  ]);

  const report = inGroup('demo-g-report', [
    inject(ids.reportInject, 'every hour (and at start)', 200, 340, [ids.reportQuery], {
      repeat: '3600',
      once: true,
      onceDelay: '2',
    }),
    query(ids.reportQuery, 'last hour, all pages', 'history', 440, 340, ['demo-report-count'], {
      pages: 'all',
      maxItems: 5000,
      startTime: '$fromMillis($millis() - 3600000)',
      startTimeType: 'jsonata',
    }),
    fn('demo-report-count', 'count per event', 660, 340, reportCount, [ids.reportDebug]),
    debug(ids.reportDebug, 'hourly report', 870, 340, 'payload'),
  ]);

  const setStatus = (id, name, y, status) =>
    inject(id, name, 220, y, ['demo-control'], {
      payload: JSON.stringify({ taskId: 1, status }),
      payloadType: 'json',
    });
  // The inject node checks at once when clicked (or through POST /inject/<id>), in both forms.
  const watchNodes = features.taskWatchType
    ? [
        inject(ids.watchPoll, 'check now', 0, 0, [ids.watch], { props: [] }),
        {
          id: ids.watch,
          type: features.taskWatchType,
          z: TAB_ID,
          name: `task status, every ${taskWatchSeconds} s`,
          server: SERVER_ID,
          intervalSeconds: taskWatchSeconds,
          taskMode: 'all',
          tasks: [],
          taskIds: '',
          emitInitial: false,
          x: 0,
          y: 0,
          wires: [[ids.watchDebug]],
        },
      ]
    : [
        inject(ids.watchPoll, `poll every ${taskWatchSeconds} s`, 0, 0, ['demo-watch-tasks'], {
          repeat: String(taskWatchSeconds),
          once: true,
          onceDelay: '1',
        }),
        query('demo-watch-tasks', 'all tasks', 'tasks', 0, 0, [ids.watch], { pages: 'all' }),
        fn(ids.watch, 'status changes', 0, 0, statusChanges, [ids.watchDebug]),
      ];
  const watch = inGroup('demo-g-watch', [
    ...watchNodes,
    // Its topic (task: before → after) shows in the sidebar; the watch's own status shows the last one.
    debug(ids.watchDebug, 'task health', 800, 460, 'payload', { tostatus: false }),
    setStatus(ids.disconnectInject, 'task 1: camera disconnects', 540, 'operating, disconnected'),
    setStatus(ids.restoreInject, 'task 1: back to normal', 580, 'operating, normal'),
    {
      id: 'demo-control',
      type: 'http request',
      z: TAB_ID,
      name: 'simulator control',
      method: 'POST',
      ret: 'obj',
      paytoqs: 'ignore',
      url: control('setTaskStatus'),
      tls: '',
      persist: false,
      proxy: '',
      insecureHTTPParser: false,
      authType: '',
      senderr: false,
      headers: [],
      x: 490,
      y: 560,
      wires: [['demo-control-answer']],
    },
    debug('demo-control-answer', 'simulator answer', 720, 560, 'payload', {
      tosidebar: false,
      statusVal: 'payload',
      statusType: 'auto',
    }),
  ]);

  // Rows: the nodes of each flow left to right in wiring order.
  const byId = (id) => [...live, ...alert, ...report, ...watch].find((node) => node.id === id);
  // Flow 1 forks: the debug node on the first row, the line and the file on the second.
  const liveFork = row(live.slice(0, 1), 110);
  row(live.slice(1, 2), 110, liveFork);
  row(live.slice(2), 170, liveFork);
  row(alert, 290);
  row(report, 410);
  // The watch's status names the last change, a long text: the debug node stands clear of it.
  const watchEnd = row(watch.slice(0, watchNodes.length), 530);
  row([byId(ids.watchDebug)], 530, watchEnd + (features.taskWatchType ? 230 : 0));
  const disconnect = byId(ids.disconnectInject);
  const restore = byId(ids.restoreInject);
  const buttonsEnd = Math.max(row([disconnect], 610), row([restore], 650));
  row([byId('demo-control'), byId('demo-control-answer')], 630, buttonsEnd);

  const errors = [
    {
      id: 'demo-catch',
      type: 'catch',
      z: TAB_ID,
      name: 'any error',
      scope: null,
      uncaught: false,
      x: 140,
      y: 720,
      wires: [[ids.errorsDebug]],
    },
    // The last error also stays on the node's status, after the sidebar has moved on.
    debug(ids.errorsDebug, 'errors', 330, 720, 'error', { statusVal: 'error.message', statusType: 'msg' }),
  ];
  row(errors, 740);

  const notes = [
    comment(
      'demo-note',
      'Observation Service demo: every node talks to the local simulator (open "demo simulator" in the config nodes)',
      'The simulator pushes live events, keeps a week of history and lets the buttons below change a task status.\n\nThe config node "demo simulator" signs in with the demo email and password, stored as Node-RED credentials (flows_cred.json), never in flows.json.',
      420,
      50,
    ),
  ];

  row(notes, 50);

  const groups = [
    group(
      'demo-g-live',
      '1 · Live events of every task → counted on the debug node, a line each in .demo/live-events.log',
      live,
      { x: 34, y: 59, w: 652, h: 142 },
      '#3a7bd5',
    ),
    group(
      'demo-g-alert',
      `2 · Person-in-zone alert with the ${features.annotatedOperation ? 'annotated ' : ''}snapshot (written to .demo/alerts)`,
      alert,
      { x: 34, y: 239, w: 1012, h: 82 },
      '#d9534f',
    ),
    group('demo-g-report', '3 · Hourly history report', report, { x: 34, y: 359, w: 932, h: 82 }, '#5cb85c'),
    group(
      'demo-g-watch',
      '4 · Task health watch (the buttons change task 1 on the simulator)',
      watch,
      { x: 34, y: 479, w: 892, h: 202 },
      '#f0ad4e',
    ),
  ];

  const server = {
    id: SERVER_ID,
    type: 'observation-server',
    name: 'demo simulator',
    url: sim.siteUrl,
    wsUrl: '',
    serviceId: sim.serviceId,
    form: 'auto',
    authType: 'login',
    trustedMediaHosts: '',
    keepAliveSeconds: 30,
    tls: '',
    proxy: '',
    credentials: { email: sim.credentials.email, password: sim.credentials.password },
  };

  return [
    {
      id: TAB_ID,
      type: 'tab',
      label: 'Observation demo',
      disabled: false,
      info: 'Example flows of @observation-service/node-red-observation against the local simulator.',
    },
    ...notes,
    ...groups,
    ...live,
    ...alert,
    ...report,
    ...watch,
    ...errors,
    server,
  ];
}
