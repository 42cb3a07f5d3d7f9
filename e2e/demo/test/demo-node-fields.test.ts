import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './demo-process.js';

// Every node of ours in the demo's flows (both tabs) holds every setting its editor has, so none
// opens with a blank field (the person alert once opened with blank Handled and Failed or late
// fields). The editor's settings are read from the packages' own editor files as Node-RED serves
// them (dist/nodes/*.html, the `defaults` each registerType gives): a field added to a node's
// editor without a value in the demo fails here. Without a browser or a running demo.

type FlowNode = Record<string, unknown> & { id: string; type: string };

const packages = ['node-red-nodes', 'node-red-dashboard-gallery'].map((name) =>
  join(repoRoot, 'packages', name),
);

/** Anything a node's editor script touches while it registers: a callable that yields itself. */
const anything: unknown = new Proxy(() => undefined, {
  get: (_target, key) => (key === Symbol.toPrimitive ? () => '' : anything),
  apply: () => anything,
  construct: () => anything as object,
});

/** Each type's `defaults`, from running the editor files' scripts against a stand-in RED. */
function editorDefaults(): Map<string, Record<string, unknown>> {
  const registered = new Map<string, Record<string, unknown>>();
  const nodes = {
    registerType: (type: string, definition: { defaults: Record<string, unknown> }) => {
      registered.set(type, definition.defaults);
    },
  };
  const orAnything = <T extends object>(target: T) =>
    new Proxy(target, { get: (object, key) => (key in object ? object[key as keyof T] : anything) });
  const RED = orAnything({ nodes: orAnything(nodes), _: (key: string) => key });
  const context = createContext({ RED, $: anything, jQuery: anything, ObservationEditor: anything });
  context.window = context;
  for (const dir of packages) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      'node-red': { nodes: Record<string, string> };
    };
    for (const file of Object.values(manifest['node-red'].nodes)) {
      const html = readFileSync(join(dir, file.replace(/\.js$/, '.html')), 'utf8');
      for (const [, script] of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)) {
        runInContext(script ?? '', context, { filename: file.replace(/\.js$/, '.html') });
      }
    }
  }
  return registered;
}

const load = async <T>(path: string): Promise<T> =>
  (await import(pathToFileURL(join(repoRoot, path)).href)) as T;
const { demoFlows, detectFeatures, SERVER_ID } = await load<{
  demoFlows(options: object): FlowNode[];
  detectFeatures(packageDir: string): { annotatedOperation?: string; taskWatchType?: string };
  SERVER_ID: string;
}>('scripts/demo/node-red-flows.mjs');
const { dashboardFlows } = await load<{ dashboardFlows(options: object): FlowNode[] }>(
  'scripts/demo/dashboard-flows.mjs',
);

/** The demo's flows as `npm start` deploys them, for a package build with these features. */
function flowsWith(features: object): FlowNode[] {
  const sim = {
    siteUrl: 'http://127.0.0.1:8080',
    serviceId: 'service',
    credentials: { email: 'demo@observation.local', password: 'observation-demo' },
  };
  return [
    ...demoFlows({
      sim,
      alertFile: '/demo/alert.png',
      eventsLog: '/demo/live-events.log',
      taskWatchSeconds: 10,
      features,
    }),
    ...dashboardFlows({ serverId: SERVER_ID }),
  ];
}

/** "type "name" field" for each editor field a node of ours leaves without a value. */
function blankFields(flows: FlowNode[], defaults: Map<string, Record<string, unknown>>): string[] {
  return flows.flatMap((node) =>
    Object.keys(defaults.get(node.type) ?? {})
      .filter((key) => node[key] === undefined)
      .map((key) => `${node.type} "${String(node.name || node.id)}" ${key}`),
  );
}

describe("the demo's nodes of our packages, against their editors' defaults", () => {
  const defaults = editorDefaults();

  it('reads the defaults of every node type the packages register', () => {
    expect([...defaults.keys()].sort()).toEqual([
      'observation-events',
      'observation-query',
      'observation-server',
      'observation-task-watch',
      'ui-observation-gallery',
    ]);
    // Fields the demo is known to set, so an empty parse cannot pass.
    expect(Object.keys(defaults.get('observation-events') ?? {})).toContain('ackTimeoutAction');
    expect(Object.keys(defaults.get('observation-query') ?? {})).toContain('startTimeType');
  });

  it('every node of ours, config nodes and the gallery widget too, has a value for each of its fields', () => {
    const flows = flowsWith(detectFeatures(join(repoRoot, 'packages', 'node-red-nodes')));
    // Each type of ours is in the demo, so each is checked.
    expect(new Set(flows.map((node) => node.type).filter((type) => defaults.has(type)))).toEqual(
      new Set(defaults.keys()),
    );
    expect(blankFields(flows, defaults)).toEqual([]);
  });

  it('so do the nodes the demo uses when a package build has no task watch node', () => {
    const flows = flowsWith({});
    expect(flows.some((node) => node.id === 'demo-watch-tasks')).toBe(true);
    expect(blankFields(flows, defaults)).toEqual([]);
  });
});
