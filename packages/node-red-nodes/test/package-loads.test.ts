import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeRedHarness, nodeRedPackage } from './harness/node-red.js';

const MODULE = '@observation-service/node-red-observation';
const TYPES = ['observation-server', 'observation-events', 'observation-query', 'observation-task-watch'];

describe(`package in Node-RED (${nodeRedPackage})`, () => {
  let red: NodeRedHarness;
  beforeAll(async () => {
    red = await NodeRedHarness.start();
  });
  afterAll(async () => {
    await red?.stop();
  });

  it('runs on the Node-RED major this project asks for', () => {
    expect(red.version.split('.')[0]).toBe(nodeRedPackage === 'node-red-4' ? '4' : '5');
  });

  it('loads the four node types from the package.json node-red field without errors', async () => {
    const result = await red.request('GET', `/nodes/${encodeURIComponent(MODULE)}`, {
      headers: { accept: 'application/json' },
    });
    expect(result.status).toBe(200);
    const module = result.json as {
      nodes: Array<{ name: string; types: string[]; enabled: boolean; err?: string }>;
    };
    const byName = Object.fromEntries(module.nodes.map((set) => [set.name, set]));
    for (const name of TYPES) {
      expect(byName[name]?.err).toBeUndefined();
      expect(byName[name]?.enabled).toBe(true);
      expect(byName[name]?.types).toEqual([name]);
    }
  });

  it('serves the editor files with a literal registerType per node and the help text', async () => {
    const result = await red.request('GET', '/nodes', { headers: { accept: 'text/html' } });
    expect(result.status).toBe(200);
    for (const type of TYPES) {
      expect(result.text).toContain(`RED.nodes.registerType('${type}'`);
      expect(result.text).toContain(`data-template-name="${type}"`);
      expect(result.text).toContain(`data-help-name="${type}"`);
    }
  });

  it('serves the shared editor script that the events and task watch dialogs load', async () => {
    const result = await red.request('GET', `/resources/${MODULE}/observation-editor.js`);
    expect(result.status).toBe(200);
    expect(result.text).toContain('window.ObservationEditor');
    const html = await red.request('GET', '/nodes', { headers: { accept: 'text/html' } });
    expect(html.text).toContain(`<script src="resources/${MODULE}/observation-editor.js"></script>`);
  });

  it('serves the message catalog of every node with status texts', async () => {
    const result = await red.request('GET', `/locales/${MODULE}/observation-events?lng=en-US`);
    expect(result.status).toBe(200);
    const catalog = result.json as { 'observation-events': { status: Record<string, string> } };
    expect(catalog['observation-events'].status.connected).toBe('connected · __count__ events');
    for (const name of ['observation-server', 'observation-query', 'observation-task-watch']) {
      const other = await red.request('GET', `/locales/${MODULE}/${name}?lng=en-US`);
      expect(Object.keys(other.json as object)).toEqual([name]);
    }
  });

  it('serves the node icons', async () => {
    for (const icon of ['observation-events.svg', 'observation-query.svg', 'observation-task-watch.svg']) {
      const result = await red.request('GET', `/icons/${MODULE}/${icon}`);
      expect(result.status).toBe(200);
      expect(result.text).toContain('<svg');
    }
  });

  it('offers an example flow for every node through the editor library', async () => {
    const list = await red.request('GET', `/library/examples/flows/${MODULE}`);
    expect(list.status).toBe(200);
    const names = (list.json as Array<{ fn: string }>).map((entry) => entry.fn);
    expect(names.length).toBeGreaterThanOrEqual(6);
    const types = new Set<string>();
    for (const name of names) {
      const flow = await red.request('GET', `/library/examples/flows/${MODULE}/${encodeURIComponent(name)}`);
      expect(flow.status).toBe(200);
      for (const node of flow.json as Array<{ type: string }>) types.add(node.type);
    }
    expect([...types]).toEqual(expect.arrayContaining(TYPES));
  });
});
