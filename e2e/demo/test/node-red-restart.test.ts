import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningDemo, repoRoot, startDemo } from './demo-process.js';
import { NodeRedComms, waitUntil } from './node-red-comms.js';

type FlowNode = Record<string, unknown> & { id: string; type: string };

const examplesDirs = [
  join(repoRoot, 'packages', 'node-red-nodes', 'examples'),
  join(repoRoot, 'packages', 'node-red-dashboard-gallery', 'examples'),
];
/** The config node every example shares (the editor keeps the one already there). */
const SHARED_SERVER = 'obs-example-server';

/**
 * Every example as "Import copy" adds it: its nodes under ids of their own (`user-…`), the shared
 * server config once, pointed at this demo's simulator as a user would set it.
 */
function importedExamples(simulatorUrl: string): FlowNode[] {
  const copy = (id: unknown) => (id === SHARED_SERVER ? id : `user-${String(id)}`);
  const nodes = new Map<string, FlowNode>();
  for (const dir of examplesDirs) {
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      for (const node of JSON.parse(readFileSync(join(dir, file), 'utf8')) as FlowNode[]) {
        const out: FlowNode = { ...node, id: String(copy(node.id)) };
        for (const key of ['z', 'g', 'server', 'group', 'page', 'ui', 'theme', 'scope'] as const) {
          if (typeof node[key] === 'string' && node[key] !== '') out[key] = copy(node[key]);
        }
        if (Array.isArray(node.scope)) out.scope = node.scope.map(copy);
        if (Array.isArray(node.nodes)) out.nodes = node.nodes.map(copy);
        if (Array.isArray(node.links)) out.links = node.links.map(copy);
        if (Array.isArray(node.wires)) out.wires = (node.wires as unknown[][]).map((port) => port.map(copy));
        if (node.type === 'observation-server') out.url = `${simulatorUrl}/apiserver`;
        nodes.set(out.id, out);
      }
    }
  }
  return [...nodes.values()];
}

/** Dashboard 2's own check: a page's URL is its ui-base's path and its own; two alike break it. */
function duplicatePageUrls(flows: FlowNode[]): string[] {
  const bases = new Map(flows.filter((node) => node.type === 'ui-base').map((node) => [node.id, node.path]));
  const urls = flows
    .filter((node) => node.type === 'ui-page')
    .map((node) => `${String(bases.get(String(node.ui)))}${String(node.path)}`);
  return urls.filter((url, index) => urls.indexOf(url) !== index);
}

describe('npm start, Ctrl-C, npm start: the user keeps their flows and credentials', () => {
  const dir = mkdtempSync(join(tmpdir(), 'demo-restart-'));
  let demo: RunningDemo | undefined;
  let comms: NodeRedComms | undefined;

  afterAll(async () => {
    comms?.close();
    if (demo && demo.child.exitCode === null && demo.child.signalCode === null) demo.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = async (base: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(new URL(path, base), {
      method,
      headers: {
        'Node-RED-API-Version': 'v2',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, `${method} ${path}`).toBe(200);
    return (await response.json()) as { flows: FlowNode[]; rev: string } & Record<string, unknown>;
  };

  it('every example imports beside the demo with no second page at a URL, and survives a restart with its credentials', async () => {
    const first = await startDemo({ NODE_RED_PORT: '0', SIMULATOR_PORT: '0', DEMO_DIR: dir });
    demo = first;
    const simulatorPort = new URL(first.simulatorUrl).port;
    const before = await admin(first.editorUrl, 'GET', 'flows');
    const examples = importedExamples(first.simulatorUrl);
    const deployed = [...before.flows, ...examples];
    // Deployed as the editor's Deploy button sends it: the shared server's demo login included.
    await admin(first.editorUrl, 'POST', 'flows', { flows: deployed, rev: before.rev });
    expect(duplicatePageUrls((await admin(first.editorUrl, 'GET', 'flows')).flows)).toEqual([]);
    first.child.kill('SIGINT');
    expect(await first.exited).toEqual({ code: 0, signal: null });

    // The user starts it again; their server config still names the simulator's port.
    const second = await startDemo({ NODE_RED_PORT: '0', SIMULATOR_PORT: simulatorPort, DEMO_DIR: dir });
    demo = second;
    comms = await NodeRedComms.open(second.editorUrl);
    const after = (await admin(second.editorUrl, 'GET', 'flows')).flows;
    const ids = new Set(after.map((node) => node.id));
    expect(examples.map((node) => node.id).filter((id) => !ids.has(id))).toEqual([]);
    // The demo's own tabs are there once, refreshed.
    expect(after.filter((node) => node.id === 'demo-tab')).toHaveLength(1);
    expect(duplicatePageUrls(after)).toEqual([]);
    const credentials = await admin(
      second.editorUrl,
      'GET',
      `credentials/observation-server/${SHARED_SERVER}`,
    );
    expect(credentials).toMatchObject({ email: 'demo@observation.local', has_password: true });

    // The user's example 01 runs on the restored credentials, and example 07 (every event, one
    // line each) writes under the demo's user dir, not the repository root.
    const userEvents = 'user-obs-ex01-events';
    await waitUntil("the user's events node to connect", () =>
      /connected/.test(comms?.status.get(userEvents)?.text ?? '') ? true : undefined,
    );
    const log = join(dir, 'node-red', 'observation-log', 'events.log');
    await waitUntil('example 07 to write its log under the user dir', () => existsSync(log));
    expect(second.output()).not.toMatch(/\[error\]/);
    expect(first.output()).not.toMatch(/\[error\]/);
    expect(second.output()).toContain('your own flows are kept across restarts');

    second.child.kill('SIGINT');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  });
});
