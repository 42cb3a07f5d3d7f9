import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captionOf, recipeCode, recipeNodes, startChat } from './harness/alert-recipe.js';
import { catchNode, eventsNode, serverNode, sink, TAB, tab } from './harness/flows.js';
import { NodeRedHarness, nodeRedPackage, packageRoot } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;

const idOf = (msg: Msg | undefined) => (msg?.payload as { id?: number } | undefined)?.id;

/**
 * The README's chat recipe, built as written, in a real Node-RED: a chat that answers 503 must
 * make the event fail (and go out again), never count it handled.
 */
describe(`the README's chat alert recipe (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;
  let chat: Awaited<ReturnType<typeof startChat>>;
  /** Requests the chat refuses before it answers 200 again. */
  let refuse = 0;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 52, historySize: 5 });
    red = await NodeRedHarness.start();
    chat = await startChat(() => {
      if (refuse === 0) return false;
      refuse -= 1;
      return true;
    });
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
    await chat?.close();
  });
  afterEach(async () => {
    await red.deploy([]);
    red.clear();
    chat.requests.length = 0;
  });

  it('the root README repeats the package README recipe word for word', () => {
    const root = readFileSync(join(packageRoot, '..', '..', 'README.md'), 'utf8');
    const { request, check } = recipeCode();
    expect(root).toContain(request);
    expect(root).toContain(check);
  });

  async function deploy(check: boolean) {
    await red.deploy([
      tab(),
      serverNode(sim),
      sink('errors'),
      catchNode('catch-node', 'errors'),
      eventsNode('events', ['seen', 'alert-request'], {
        attachAnnotated: true,
        ackMode: 'done',
        ackTimeoutAction: 'retry',
        ackAttempts: 3,
        maxInFlight: 1,
      }),
      sink('seen'),
      ...recipeNodes(chat.url, 'delivered', '', TAB, check),
      sink('delivered'),
    ]);
    await waitUntil(() => sim.control.stats().openSockets === 1, 10_000, 'connected');
  }

  it('a chat answering 503 twice: the alert fails twice (Catch hears each, from the check) and is delivered at the third attempt', async () => {
    await deploy(true);
    refuse = 2;
    const [event] = await sim.control.emit(1);
    await red.waitFor('delivered', (list) => list.length === 1, 30_000);
    const caption = captionOf(red.messages('seen')[0]?.payload as never);
    expect(chat.requests.map((request) => [request.text, request.status, request.path])).toEqual([
      [caption, 503, '/bot-test/sendPhoto'],
      [caption, 503, '/bot-test/sendPhoto'],
      [caption, 200, '/bot-test/sendPhoto'],
    ]);
    expect(red.messages('seen').map((msg) => [idOf(msg), msg.attempt])).toEqual([
      [event?.id, undefined],
      [event?.id, 2],
      [event?.id, 3],
    ]);
    expect(red.messages('delivered')[0]).toMatchObject({ statusCode: 200, attempt: 3 });
    const errors = red.messages('errors');
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect((error.error as { message: string; source: { id: string } }).source.id).toBe('answered');
      expect((error.error as { message: string }).message).toContain('the chat answered 503');
    }
  });

  it('built without the check (the issue): the 503 comes out of the http request node and the alert counts as handled, lost', async () => {
    await deploy(false);
    refuse = 1;
    const [event] = await sim.control.emit(1);
    await red.waitFor('delivered', (list) => list.length === 1, 30_000);
    // Handled: the next event goes out (In flight 1), and the lost one never again.
    const [next] = await sim.control.emit(1);
    await red.waitFor('delivered', (list) => list.length === 2, 30_000);
    expect(red.messages('delivered').map((msg) => [idOf(msg), msg.statusCode])).toEqual([
      [undefined, 503],
      [undefined, 200],
    ]);
    expect(red.messages('seen').map(idOf)).toEqual([event?.id, next?.id]);
    expect(chat.requests.map((request) => request.status)).toEqual([503, 200]);
    expect(red.messages('errors')).toEqual([]);
  });
});
