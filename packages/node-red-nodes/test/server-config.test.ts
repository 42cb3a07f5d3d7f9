import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNode, serverNode, sink, tab } from './harness/flows.js';
import { NodeRedHarness, nodeRedPackage, users } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

interface Layer {
  route?: { path?: string };
  handle?: { _router?: { stack?: Layer[] } };
}

/** Routes with this path in the express (4.x, as Node-RED 4 and 5 ship) app's router. */
function countRoutes(stack: Layer[] | undefined, path: string): number {
  return (stack ?? []).filter((layer) => layer.route?.path === path).length;
}

describe(`observation-server config node and editor routes (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 3 });
    red = await NodeRedHarness.start({ adminAuth: true });
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
  });

  it('keeps the token, email and password out of the flow export and flows.json', async () => {
    await red.deploy([
      tab(),
      serverNode(sim, { id: 'server-token' }, 'server-token'),
      serverNode(
        sim,
        {
          authType: 'login',
          credentials: { email: sim.credentials.email, password: sim.credentials.password },
        },
        'server-login',
      ),
    ]);
    const exported = await red.request('GET', '/flows');
    expect(exported.status).toBe(200);
    const onDisk = readFileSync(join(red.userDir, 'flows.json'), 'utf8');
    for (const text of [exported.text, onDisk]) {
      expect(text).toContain('server-token');
      expect(text).not.toContain(sim.token);
      expect(text).not.toContain(sim.credentials.password);
      expect(text).not.toContain(sim.credentials.email);
      expect(text).not.toContain('"credentials"');
    }
    const credentialsFile = readFileSync(join(red.userDir, 'flows_cred.json'), 'utf8');
    expect(credentialsFile).not.toContain(sim.token);
    expect(credentialsFile).not.toContain(sim.credentials.password);

    // What the editor gets back for a password credential is only whether it is set.
    const editorView = await red.request('GET', '/credentials/observation-server/server-token');
    expect(editorView.json).toMatchObject({ has_token: true, has_password: false });
    expect(editorView.text).not.toContain(sim.token);
    expect(Object.keys(editorView.json as object)).not.toContain('token');
  });

  it('a server without a service id warns once that it uses the basic form, unless Form says basic', async () => {
    red.problems.length = 0;
    await red.deploy([
      tab(),
      serverNode(sim, { serviceId: '' }, 'server-no-id'),
      serverNode(sim, { serviceId: '', form: 'basic' }, 'server-basic'),
      serverNode(sim, {}, 'server-with-id'),
      // A later sentinel: once the runtime has logged its own problem, the servers' turn is past.
      { id: 'sentinel', type: 'function', z: 'tab-1', func: 'node.warn("sentinel"); return msg;', wires: [] },
      {
        id: 'kick',
        type: 'inject',
        z: 'tab-1',
        once: true,
        onceDelay: 0.1,
        props: [],
        wires: [['sentinel']],
      },
    ]);
    const started = Date.now();
    while (!red.problems.some((problem) => problem.id === 'sentinel') && Date.now() - started < 10_000) {
      await new Promise((wake) => setTimeout(wake, 20));
    }
    expect(red.problems.some((problem) => problem.id === 'sentinel')).toBe(true);
    const warnings = red.problems.filter((problem) => String(problem.id).startsWith('server-'));
    expect(warnings.map((problem) => [problem.id, problem.level])).toEqual([['server-no-id', 30]]);
    expect(String(warnings[0]?.msg)).toMatch(
      /^No Service id: this server uses the basic form \(events without location or camera, times in UTC/,
    );
  });

  it("core's log lines reach Node-RED's log under the config node at core's level: a position of other tasks is a note, not a warning", async () => {
    const [first, second] = sim.world.tasks.map((task) => task.id);
    const flow = (taskIds: string) => [
      tab(),
      serverNode(sim, {}, 'server-notes'),
      sink('out'),
      eventsNode('events-notes', ['out'], { server: 'server-notes', taskMode: 'ids', taskIds }),
    ];
    await red.deploy(flow(String(first)));
    // Saved at once: a new stream's start is a position too.
    await waitUntil(() => sim.control.stats().openSockets === 1, 10_000, 'subscribed');
    // The same node, other tasks: the position it stored belongs to another selection. The user
    // changed the settings, so core says it at info level: the log, not the debug sidebar.
    await red.deploy(flow(String(second)));
    const note =
      'the stored position belongs to another service or task selection (the settings changed): starting live, as a new subscription does';
    await waitUntil(
      () => red.notes.some((entry) => entry.id === 'server-notes' && entry.msg === note),
      10_000,
      "core's note in Node-RED's log",
    );
    // Written where a warning would have been, so by now one would be here.
    expect(red.problems.filter((problem) => problem.id === 'server-notes')).toEqual([]);
    await red.deploy([]);
  });

  it('signs in with email and password once and serves the task list from it', async () => {
    await red.deploy([
      tab(),
      serverNode(
        sim,
        {
          authType: 'login',
          credentials: { email: sim.credentials.email, password: sim.credentials.password },
        },
        'server-login',
      ),
    ]);
    const before = sim.control.stats().logins;
    const tasks = await red.request('GET', '/observation-server/server-login/tasks');
    expect(tasks.status).toBe(200);
    const again = await red.request('GET', '/observation-server/server-login/locations');
    expect(again.status).toBe(200);
    expect(sim.control.stats().logins - before).toBe(1);
  });

  describe('editor routes', () => {
    beforeAll(async () => {
      await red.deploy([tab(), serverNode(sim), sink('out'), eventsNode('events', ['out'])]);
    });

    it('list the tasks, locations and event types of the deployed server', async () => {
      const tasks = await red.request('GET', '/observation-server/server-1/tasks');
      expect(tasks.status).toBe(200);
      expect((tasks.json as Array<{ id: number }>).map((task) => task.id)).toEqual(
        sim.world.tasks.map((task) => task.id),
      );
      expect((tasks.json as Array<{ name: string }>)[0]?.name).toBe(sim.world.tasks[0]?.name);

      const locations = await red.request('GET', '/observation-server/server-1/locations');
      expect((locations.json as Array<{ id: number }>).map((location) => location.id)).toEqual(
        sim.world.locations.map((location) => location.id),
      );

      const types = await red.request('GET', '/observation-server/server-1/event-types');
      const names = (types.json as Array<{ name: string }>).map((type) => type.name).sort();
      const used = new Set(sim.world.tasks.flatMap((task) => task.events.map((event) => event.id)));
      const expected = sim.world.eventTypes.filter((type) => used.has(type.id)).map((type) => type.name);
      expect(names).toEqual(expected.sort());
    });

    it('need the read permission', async () => {
      const anonymous = await red.request('GET', '/observation-server/server-1/tasks', { anonymous: true });
      expect(anonymous.status).toBe(401);
      const flowsOnly = await red.request('GET', '/observation-server/server-1/tasks', {
        token: await red.login(users.flowsOnly),
      });
      expect([401, 403]).toContain(flowsOnly.status);
      const reader = await red.request('GET', '/observation-server/server-1/tasks', {
        token: await red.login(users.reader),
      });
      expect(reader.status).toBe(200);
    });

    it('answer 503 "deploy the server config first" for a config node that is not deployed', async () => {
      for (const what of ['tasks', 'locations', 'event-types']) {
        const result = await red.request('GET', `/observation-server/not-deployed-yet/${what}`);
        expect(result.status).toBe(503);
        expect(result.json).toMatchObject({
          code: 'not-deployed',
          error: expect.stringContaining('deploy the server config first'),
        });
      }
    });

    it('never use a token sent by the browser', async () => {
      // The browser's token and address would reach the service only through a node that is not
      // a deployed server config: the route answers that it is not deployed instead.
      const browserToken = 'browser-token-not-known-to-the-service';
      const browserSends = `token=${browserToken}&url=${encodeURIComponent(sim.apiUrl)}`;
      const headers = { 'x-observation-token': browserToken };
      for (const id of ['not-deployed-yet', 'events']) {
        const answer = await red.request('GET', `/observation-server/${id}/tasks?${browserSends}`, {
          headers,
        });
        expect(answer.status, id).toBe(503);
        expect(answer.json).toMatchObject({ code: 'not-deployed' });
      }
      // The deployed server answers with its own credentials: had the browser's token been used,
      // the service would have refused it (a 502 with its error), counted as a failed request.
      // (The count of all requests would say nothing: the events node reads the service too.)
      const failedBefore = sim.control.stats().requestsFailed;
      const served = await red.request('GET', `/observation-server/server-1/tasks?${browserSends}`, {
        headers,
      });
      expect(served.status).toBe(200);
      expect((served.json as Array<{ id: number }>).map((task) => task.id)).toEqual(
        sim.world.tasks.map((task) => task.id),
      );
      expect(sim.control.stats().requestsFailed).toBe(failedBefore);
    });

    it('answer 502 with the service error, without the token, when the service refuses', async () => {
      await red.deploy([tab(), serverNode(sim, { credentials: { token: 'wrong-token-123' } })]);
      const result = await red.request('GET', '/observation-server/server-1/tasks');
      expect(result.status).toBe(502);
      expect(result.json).toMatchObject({ error: expect.any(String), code: expect.any(String) });
      expect(result.text).not.toContain('wrong-token-123');
    });

    it('are registered once, however often the flows are deployed', async () => {
      for (let i = 0; i < 3; i += 1) await red.deploy([tab(), serverNode(sim)]);
      const app = red.runtimeAdminApp() as Layer['handle'];
      const stack = app?._router?.stack;
      expect(countRoutes(stack, '/observation-server/:id/tasks')).toBe(1);
      expect(countRoutes(stack, '/observation-server/:id/event-types')).toBe(1);
    });
  });
});
