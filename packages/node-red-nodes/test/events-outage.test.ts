import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captionOf, recipeNodes, startChat } from './harness/alert-recipe.js';
import { catchNode, eventsNode, serverNode, sink, TAB, tab } from './harness/flows.js';
import { NodeRedHarness, nodeRedPackage } from './harness/node-red.js';
import { waitUntil } from './harness/wait.js';

type Msg = Record<string, unknown>;
type Event = { id: number; eventName: string; taskId: number; timestamp: string };

/** The outage: the chat answers 503 for two minutes. */
const OUTAGE_MS = 120_000;
/** An event every this often during the outage (round robin over three tasks). */
const EVERY_MS = 10_000;
/**
 * Run again after 20 s, then every minute: whenever in the outage an event first fails, one of its
 * attempts falls within a minute after the outage ends (cumulative 20, 80, 140, 200 s).
 */
const PAUSES = '20s, 1m, 1m, 1m';
const GIVEN_UP_FILE = 'given-up-alerts.jsonl';

const eventOf = (msg: Msg) => msg.payload as Event;
const sourceOf = (msg: Msg) => (msg.error as { source?: { id?: string } } | undefined)?.source?.id;

/**
 * The README's chat recipe on two events nodes in one runtime, through the same two-minute outage
 * of their chats: "run again after pauses" delivers every alert of the window once after the chat
 * is back; "let it go" gives each up at its first failure, where the docs say (the second output,
 * a file, one warning each), and the file replays them.
 */
describe(`the chat alert through a two-minute outage (${nodeRedPackage})`, () => {
  let sim: Simulator;
  let red: NodeRedHarness;
  let down = false;
  let chatAgain: Awaited<ReturnType<typeof startChat>>;
  let chatLetGo: Awaited<ReturnType<typeof startChat>>;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 53, historySize: 5 });
    red = await NodeRedHarness.start({ filesInUserDir: true });
    chatAgain = await startChat(() => down);
    chatLetGo = await startChat(() => down);
  });
  afterAll(async () => {
    await red?.stop();
    await sim?.stop();
    await chatAgain?.close();
    await chatLetGo?.close();
  });

  it('run again after pauses: each alert of the window delivered once after the chat is back; let go: each given up once, on the second output and in the log, and replayed from the file', {
    timeout: OUTAGE_MS + 180_000,
  }, async () => {
    const tasks = sim.world.tasks.slice(0, 3).map((task) => task.id);
    await red.deploy([
      tab(),
      serverNode(sim),
      sink('errors'),
      catchNode('catch-node', 'errors'),
      {
        ...eventsNode('again', [], {
          ackMode: 'done',
          ackTimeoutAction: 'retry',
          ackRetry: 'pauses',
          ackRetryPauses: PAUSES,
          // Every event of the outage waits in a pause at once: each keeps its slot meanwhile.
          maxInFlight: 30,
          givenUpOutput: true,
          outputs: 2,
        }),
        wires: [['again-seen', 'again-alert-request'], ['again-given-up']],
      },
      sink('again-seen'),
      sink('again-given-up'),
      ...recipeNodes(chatAgain.url, 'again-delivered', 'again-'),
      sink('again-delivered'),
      {
        ...eventsNode('let-go', ['let-go-seen', 'let-go-alert-request'], {
          ackMode: 'done',
          ackTimeoutAction: 'release',
          maxInFlight: 30,
          givenUpOutput: true,
          outputs: 2,
        }),
        // Given up: kept in a file (one JSON line each) and shown to the test.
        wires: [
          ['let-go-seen', 'let-go-alert-request'],
          ['given-up-file', 'let-go-given-up'],
        ],
      },
      sink('let-go-seen'),
      ...recipeNodes(chatLetGo.url, 'let-go-delivered', 'let-go-'),
      sink('let-go-delivered'),
      {
        id: 'given-up-file',
        type: 'file',
        z: TAB,
        filename: GIVEN_UP_FILE,
        filenameType: 'str',
        appendNewline: true,
        createDir: false,
        overwriteFile: 'false',
        encoding: 'none',
        wires: [[]],
      },
      sink('let-go-given-up'),
      // The replay the help shows: inject → file in (a msg per line) → json → the alert request.
      {
        id: 'replay',
        type: 'inject',
        z: TAB,
        name: 'replay given-up alerts',
        props: [],
        repeat: '',
        once: false,
        wires: [['read-given-up']],
      },
      {
        id: 'read-given-up',
        type: 'file in',
        z: TAB,
        filename: GIVEN_UP_FILE,
        filenameType: 'str',
        format: 'lines',
        chunk: false,
        sendError: false,
        encoding: 'none',
        allProps: false,
        wires: [['parse-given-up']],
      },
      {
        id: 'parse-given-up',
        type: 'json',
        z: TAB,
        property: 'payload',
        action: 'obj',
        wires: [['let-go-alert-request']],
      },
    ]);
    await waitUntil(() => sim.control.stats().openSockets === 2, 10_000, 'both connected');

    // The outage: an event every 10 s while the chats answer 503.
    down = true;
    const outageEnds = Date.now() + OUTAGE_MS;
    const window: number[] = [];
    for (let at = 0; Date.now() + EVERY_MS / 2 < outageEnds; at++) {
      const [event] = await sim.control.emit(1, { taskIds: [tasks[at % tasks.length] as number] });
      window.push(event?.id as number);
      await new Promise((wake) => setTimeout(wake, Math.min(EVERY_MS, outageEnds - Date.now())));
    }
    await new Promise((wake) => setTimeout(wake, Math.max(0, outageEnds - Date.now())));
    down = false;
    const captions = new Map(
      red
        .messages('again-seen')
        .filter((msg) => window.includes(eventOf(msg).id) && msg.attempt === undefined)
        .map((msg) => [eventOf(msg).id, captionOf(eventOf(msg))]),
    );
    expect(captions.size).toBe(window.length);
    expect(window.length).toBeGreaterThanOrEqual(11);

    // Run again: every alert of the window reaches the chat once, after it is back.
    const delivered = (caption: string) =>
      chatAgain.requests.filter((request) => request.text === caption && request.status === 200);
    await waitUntil(
      () => [...captions.values()].every((caption) => delivered(caption).length > 0),
      // The last pauses are a minute: each alert comes within a minute of the outage's end.
      90_000,
      'every alert of the window delivered',
      () => chatAgain.requests.length,
    );
    for (const caption of captions.values()) {
      expect(delivered(caption), caption).toHaveLength(1);
      const refused = chatAgain.requests.filter(
        (request) => request.text === caption && request.status === 503,
      );
      expect(refused.length, caption).toBeGreaterThanOrEqual(1);
      expect(delivered(caption)[0]?.at).toBeGreaterThanOrEqual(outageEnds);
    }
    // None given up: no message on its second output, no warning from it.
    expect(red.messages('again-given-up')).toEqual([]);
    expect(red.problems.filter((problem) => problem.id === 'again')).toEqual([]);
    // Catch heard each failed attempt once (Node-RED reports every throw of the check).
    const againErrors = red.messages('errors').filter((msg) => sourceOf(msg) === 'again-answered');
    expect(againErrors).toHaveLength(chatAgain.requests.filter((request) => request.status === 503).length);

    // Let go: each alert of the window tried once, given up once, where the docs say.
    for (const caption of captions.values()) {
      expect(
        chatLetGo.requests.filter((request) => request.text === caption).map((request) => request.status),
        caption,
      ).toEqual([503]);
    }
    const givenUp = red.messages('let-go-given-up').filter((msg) => window.includes(eventOf(msg).id));
    expect(givenUp.map((msg) => eventOf(msg).id).sort()).toEqual([...window].sort());
    for (const msg of givenUp) {
      expect(msg.givenUp).toMatchObject({ reason: 'failed', attempts: 1 });
      expect(String((msg.givenUp as { error: string }).error)).toContain('the chat answered 503');
      expect(msg.topic).toBe(eventOf(msg).eventName);
    }
    const warnings = red.problems.filter((problem) => problem.id === 'let-go');
    for (const id of window) {
      expect(
        warnings.filter((problem) => String(problem.msg).includes(`gave up on event ${id} (attempts: 1,`)),
        String(id),
      ).toHaveLength(1);
    }
    const file = join(red.userDir, GIVEN_UP_FILE);
    const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
    await waitUntil(() => lines().length >= window.length, 10_000, 'the given-up file written');
    expect(lines().map((line) => (JSON.parse(line) as Event).id)).toEqual(
      givenUp.map((msg) => eventOf(msg).id),
    );

    // Replayed from the file once the chat is back: each given-up alert reaches it (as text).
    const result = await red.request('POST', '/inject/replay');
    expect(result.status).toBe(200);
    const replayed = (caption: string) =>
      chatLetGo.requests.filter(
        (request) =>
          request.text === caption && request.status === 200 && request.path.endsWith('/sendMessage'),
      );
    await waitUntil(
      () => [...captions.values()].every((caption) => replayed(caption).length > 0),
      20_000,
      'every given-up alert replayed',
    );
    for (const caption of captions.values()) expect(replayed(caption)).toHaveLength(1);
  });
});
