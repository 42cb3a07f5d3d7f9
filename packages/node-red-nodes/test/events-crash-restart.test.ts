import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Simulator, seededRandom, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNode, joinNode, serverNode, splitNode, TAB, tab } from './harness/flows.js';
import { type FlowNode, nodeRedPackage } from './harness/node-red.js';
import { NodeRedProcess } from './harness/node-red-process.js';
import { waitUntil } from './harness/wait.js';

/** Core's default positionSaveMs. */
const SAVE_MS = 1_000;
/** The ticket endpoint answers each request this late, drawn evenly (a slow ticketing system). */
const ANSWER_MS = { min: 500, max: 1_500 };
/** Timer lateness, the file write and a restart's first events on a busy 2-core machine. */
const SLACK_MS = 1_000;
/**
 * Kills per run: 20 for "when the flow is done" (the at-least-once mode) on the current Node-RED,
 * a few elsewhere in `npm test` (each start of red.js costs seconds, and Node-RED 4 runs the same
 * node code); CRASH_KILLS sets every run's count.
 */
function killsFor(mode: 'sent' | 'done'): number {
  if (process.env.CRASH_KILLS !== undefined) return Number(process.env.CRASH_KILLS);
  return mode === 'done' && nodeRedPackage === 'node-red' ? 20 : 3;
}
/** Events sent into the flow and not yet back, at most: the endpoint holds ~1.5 s of 100 events/s. */
const IN_FLIGHT = 300;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A local "ticketing system": answers each POSTed event with its id, late. */
async function startTicketEndpoint(random: () => number) {
  let open = 0;
  /** When each event's (last) request came in. */
  const arrivals = new Map<number, number>();
  /** When each request came in, per event (the first, and any repeat). */
  const requests = new Map<number, number[]>();
  /**
   * Events whose (last) request lost its connection before its answer: the Node-RED that sent it
   * died meanwhile. Its body can be read after the kill (still in the socket's buffer on a loaded
   * machine), so its arrival time alone does not tell.
   */
  const unanswered = new Set<number>();
  const server: Server = createServer((request, response) => {
    open += 1;
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const id = String((JSON.parse(body) as { id: number }).id);
      arrivals.set(Number(id), Date.now());
      requests.set(Number(id), [...(requests.get(Number(id)) ?? []), Date.now()]);
      let answered = false;
      // Closed before the answer was written: the connection's other end died.
      response.once('close', () => {
        if (!answered) unanswered.add(Number(id));
      });
      setTimeout(
        () => {
          open -= 1;
          answered = true;
          response.end(id);
        },
        ANSWER_MS.min + random() * (ANSWER_MS.max - ANSWER_MS.min),
      );
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tickets`,
    arrivals,
    requests,
    unanswered,
    /** Requests not answered yet. */
    get open() {
      return open;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}

/**
 * The flow a user builds with Node-RED's own asynchronous nodes: each event is POSTed to a
 * ticketing endpoint (`http request`, answered 0.5–1.5 s later), then its id and the time are
 * appended by the `file` node (which writes on a stream and calls done() once written). "When the
 * flow is done" adds a `complete` node watching the file node, wired back to the events node.
 */
function ticketFlow(sim: Simulator, mode: 'sent' | 'done', url: string, file: string): FlowNode[] {
  return [
    tab(),
    serverNode(sim),
    eventsNode('events', ['ticket'], { ackMode: mode, maxInFlight: IN_FLIGHT }),
    {
      id: 'ticket',
      type: 'http request',
      z: TAB,
      method: 'POST',
      ret: 'txt',
      paytoqs: 'ignore',
      url,
      tls: '',
      persist: false,
      proxy: '',
      authType: '',
      senderr: false,
      headers: [],
      wires: [['stamp']],
    },
    {
      id: 'stamp',
      type: 'function',
      z: TAB,
      func: "msg.payload = msg.payload + ' ' + Date.now();\nreturn msg;",
      outputs: 1,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      wires: [['write']],
    },
    {
      id: 'write',
      type: 'file',
      z: TAB,
      filename: file,
      filenameType: 'str',
      appendNewline: true,
      createDir: false,
      overwriteFile: 'false',
      encoding: 'none',
      wires: [[]],
    },
    ...(mode === 'done'
      ? [{ id: 'back', type: 'complete', z: TAB, scope: ['write'], uncaught: false, wires: [['events']] }]
      : []),
  ];
}

/**
 * What a test of the ticket flow runs against: a simulator, a `red.js` and the ticket endpoint,
 * started before the describe's test and stopped after it. `CRASH_SEED` repeats a run's points.
 */
function ticketRig(simulatorSeed: number) {
  const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
  const rig = {
    seed,
    random: seededRandom(seed),
    sim: undefined as unknown as Simulator,
    red: undefined as unknown as NodeRedProcess,
    endpoint: undefined as unknown as Awaited<ReturnType<typeof startTicketEndpoint>>,
  };
  beforeAll(async () => {
    rig.sim = await startSimulator({ seed: simulatorSeed });
    rig.red = NodeRedProcess.create();
    rig.endpoint = await startTicketEndpoint(seededRandom(seed + 1));
  });
  afterAll(async () => {
    await rig.red?.dispose();
    await rig.endpoint?.close();
    await rig.sim?.stop();
  });
  return rig;
}

/** One line the file node wrote: the event's id and when the flow stamped it. */
const sinkLine = (line: string) => line.split(' ').map(Number) as [number, number];

/** The lines the file node wrote. */
function sinkLines(file: string): [number, number][] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(sinkLine) : [];
}

/**
 * The lines the file node appended since the last call, for a wait that polls every 20 ms while
 * minutes of catch-up are written: re-reading the whole file at each poll was most of this
 * process's own CPU (profiled). A line not ended yet waits for its end.
 */
function sinkTail(file: string): () => [number, number][] {
  let read = 0;
  let rest = '';
  return () => {
    const size = existsSync(file) ? statSync(file).size : 0;
    if (size <= read) return [];
    const chunk = Buffer.alloc(size - read);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, chunk, 0, chunk.length, read);
    } finally {
      closeSync(fd);
    }
    read = size;
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop() ?? '';
    return parts.filter(Boolean).map(sinkLine);
  };
}

/** Publishes one on-time event every `everyMs` until `stop`, which resolves to how long it ran. */
function streamEvents(sim: Simulator, everyMs: number) {
  const emitted: number[] = [];
  const startedAt = Date.now();
  let streaming = true;
  const stream = (async () => {
    while (streaming) {
      for (const event of await sim.control.emit(1, { latenessMs: 0 })) emitted.push(event.id);
      await pause(everyMs);
    }
  })();
  return {
    emitted,
    async stop(): Promise<number> {
      streaming = false;
      await stream;
      return Date.now() - startedAt;
    },
  };
}

/**
 * Positive evidence that everything before it is through: an on-time sentinel written, then no
 * request left at the endpoint, then a second sentinel written after those answers.
 */
async function allThrough(rig: ReturnType<typeof ticketRig>, file: string): Promise<void> {
  // Each wait fails after its time without progress (lines written, requests answered): after 20
  // kills the catch-up takes minutes on a loaded runner, and is still correct.
  const written = async (what: string) => {
    const [sentinel] = await rig.sim.control.emit(1, { latenessMs: 0 });
    const appended = sinkTail(file);
    let lines = 0;
    let found = false;
    await waitUntil(
      () => {
        for (const [id] of appended()) {
          lines += 1;
          if (id === sentinel?.id) found = true;
        }
        return found;
      },
      60_000,
      what,
      () => lines,
    );
  };
  await written('the first sentinel');
  await waitUntil(
    () => rig.endpoint.open === 0,
    30_000,
    'every request answered',
    () => rig.endpoint.open,
  );
  await written('the second sentinel');
}

/**
 * The events node in Node-RED as a user runs it (`red.js`, the default settings.js: no
 * contextStorage, so the position is in observation-state/<id>.json), killed with SIGKILL at
 * random points while 100 events/s go through an asynchronous flow, and started again.
 * "When the flow is done" loses nothing; "when sent" loses what the flow was still working on at
 * each kill, and the figure is the README's.
 */
describe.each(['done', 'sent'] as const)(
  `events node across SIGKILLs, handled when %s (${nodeRedPackage})`,
  (mode) => {
    const rig = ticketRig(53);
    const killCount = killsFor(mode);

    it(`${killCount} kills under 100 events/s through http request and file`, async () => {
      const { sim, red, endpoint, seed, random } = rig;
      console.log(
        `events crash-restart (${mode}) seed ${seed} (CRASH_SEED=${seed} repeats these kill points)`,
      );
      const sinkFile = join(red.userDir, 'tickets.log');
      await red.start();
      expect(red.log).toContain("Context store  : 'default' [module=memory]");
      await red.deploy(ticketFlow(sim, mode, endpoint.url, sinkFile));
      await waitUntil(() => sim.control.stats().openSockets === 1, 15_000, 'connected');
      // A fresh start is live from its start second: the stream begins once the node is past it.
      await pause(1_100);

      const stream = streamEvents(sim, 10);
      const { emitted } = stream;
      // Where each run's lines begin in the sink file.
      const runStarts = [0];
      /** What each run of Node-RED logged: a red run says why an event came twice in one. */
      const runLogs: string[] = [];
      const kills: { at: number; open: number }[] = [];
      let streamedMs = 0;
      try {
        await pause(2_000);
        for (let kill = 1; kill <= killCount; kill++) {
          await pause(300 + random() * 1_500);
          // Evidence that the kill hits work in flight: a request the endpoint has not answered.
          await waitUntil(() => endpoint.open > 0, 60_000, `a request in flight before kill ${kill}`);
          kills.push({ at: Date.now(), open: endpoint.open });
          await red.kill();
          runLogs.push(red.log);
          runStarts.push(sinkLines(sinkFile).length);
          await pause(random() * 500);
          await red.start();
        }
        await pause(500);
      } finally {
        streamedMs = await stream.stop();
      }
      await allThrough(rig, sinkFile);

      const lines = sinkLines(sinkFile);
      const seen = new Set(lines.map(([id]) => id));
      const lost = emitted.filter((id) => !seen.has(id));
      let repeated = 0;
      let maxSpanMs = 0;
      let twiceInOneRun = 0;
      for (let run = 0; run < runStarts.length; run++) {
        const own = lines.slice(runStarts[run], runStarts[run + 1] ?? lines.length);
        // A line without an id is a request that failed (the http request node sends its error on,
        // "RequestError: socket hang up"): not an event written, so not one written twice.
        const ids = own.map(([id]) => id).filter((id) => Number.isFinite(id));
        const twice = ids.length - new Set(ids).size;
        twiceInOneRun += twice;
        if (twice > 0) {
          const first = new Map<number, number>();
          const where = ids.flatMap((id, index) => {
            const earlier = first.get(id);
            if (earlier === undefined) first.set(id, index);
            return earlier === undefined ? [] : [`${id} at lines ${earlier} and ${index}`];
          });
          const problems = (runLogs[run] ?? red.log)
            .split('\n')
            .filter((line) => /\[(warn|error)\]/.test(line));
          console.log(
            `run ${run} (lines from ${runStarts[run]}, ${ids.length} lines) has ${twice} events twice: ${where.slice(0, 10).join('; ')}\nits Node-RED warnings and errors:\n${problems.slice(-30).join('\n')}`,
          );
        }
        const later = new Set(lines.slice(runStarts[run + 1] ?? lines.length).map(([id]) => id));
        const times = own.filter(([id]) => later.has(id)).map(([, at]) => at);
        repeated += times.length;
        if (times.length > 0) maxSpanMs = Math.max(maxSpanMs, Math.max(...times) - Math.min(...times));
      }
      const rate = (emitted.length * 1000) / streamedMs;
      const outAtKills = kills.reduce((sum, kill) => sum + kill.open, 0);
      console.log(
        `events crash-restart (${mode}, ${nodeRedPackage}): ${killCount} kills, ${emitted.length} events (${rate.toFixed(0)}/s), ${lost.length} lost (${(lost.length / killCount).toFixed(1)} per kill; ${outAtKills} requests open at the kills, ${endpoint.unanswered.size} cut off unanswered), ${repeated} repeated, longest repeated span ${maxSpanMs} ms`,
      );
      expect(emitted.length).toBeGreaterThan(killCount * 30);
      expect(kills.filter((kill) => kill.open === 0)).toEqual([]);
      expect(twiceInOneRun).toBe(0);
      if (mode === 'done') {
        expect(lost).toEqual([]);
        // Repeated: what came back within a save interval of the kill, and what came back while an
        // earlier event was still out (answers come back up to the spread of their delays apart).
        expect(maxSpanMs).toBeLessThanOrEqual(SAVE_MS + ANSWER_MS.max - ANSWER_MS.min + SLACK_MS);
      } else {
        // What the README says: a kill loses what the flow was working on, the events that went into
        // it within the flow's time before the kill (after a restart, that can be the whole
        // catch-up). The test sees loss at all, which the synchronous sink it replaces could not.
        expect(lost.length).toBeGreaterThan(0);
        // In the flow at a kill: its request came in before the last kill (the flow of a run that
        // was killed), or its connection was gone before the answer (read after the kill, sent
        // before it: CI of 35a4f21 lost 3 such events), or it never came (sent into the flow,
        // still queued for http request when Node-RED died: a restart's catch-up burst on a busy
        // machine). How long before the kill is not asserted: on a loaded 2-core runner Node-RED 4
        // took over 2 s to write an answer.
        const lastKill = kills.at(-1)?.at ?? 0;
        const inFlowAtAKill = (id: number) => {
          const arrived = endpoint.arrivals.get(id);
          return arrived === undefined || arrived <= lastKill || endpoint.unanswered.has(id);
        };
        expect(lost.filter((id) => !inFlowAtAKill(id))).toEqual([]);
        expect(maxSpanMs).toBeLessThanOrEqual(SAVE_MS + SLACK_MS);
      }
    }, 600_000);
  },
);

/**
 * Graceful stops "when the flow is done": full redeploys and restarts (SIGINT, as Ctrl-C or a
 * service manager stops Node-RED) while requests are in flight. Node-RED stops every node of a
 * flow at once and drops the messages still travelling (an answer that comes back finds its next
 * node gone), so what a stop cut mid-flow is sent again after it: at least once. What the flow
 * had finished (written by the file node) must never come again.
 */
describe(`events node across graceful stops, handled when the flow is done (${nodeRedPackage})`, () => {
  const STOPS = 4;
  const rig = ticketRig(57);

  it(`${STOPS} stops (redeploys and restarts) under 30 events/s: nothing lost, nothing finished comes again`, async () => {
    const { sim, red, endpoint, seed, random } = rig;
    console.log(`events graceful stops seed ${seed} (CRASH_SEED=${seed} repeats these stop points)`);
    const sinkFile = join(red.userDir, 'tickets.log');
    const flow = ticketFlow(sim, 'done', endpoint.url, sinkFile);
    await red.start();
    await red.deploy(flow);
    await waitUntil(() => sim.control.stats().openSockets === 1, 15_000, 'connected');
    await pause(1_100);
    const stream = streamEvents(sim, 30);
    const { emitted } = stream;
    /** Each stop: from when it was asked for to when the flows ran again, and what was open then. */
    const stops: { from: number; to: number; open: number }[] = [];
    try {
      for (let stop = 1; stop <= STOPS; stop++) {
        await pause(1_000 + random() * 1_000);
        await waitUntil(() => endpoint.open > 0, 60_000, `a request in flight before stop ${stop}`);
        const from = Date.now();
        const open = endpoint.open;
        if (stop % 2 === 1) await red.deploy(flow);
        else {
          await red.stop();
          await red.start();
        }
        await waitUntil(() => sim.control.stats().openSockets === 1, 15_000, `connected after stop ${stop}`);
        stops.push({ from, to: Date.now(), open });
      }
      await pause(500);
    } finally {
      await stream.stop();
    }
    await allThrough(rig, sinkFile);

    const lines = sinkLines(sinkFile).map(([id]) => id);
    const seen = new Set(lines);
    // A request made again: its first one came in while a stop could still cut it (within the
    // endpoint's longest answer before the stop was asked for, up to the flows running again).
    const cutByAStop = (at: number) =>
      stops.some((stop) => at >= stop.from - ANSWER_MS.max - SLACK_MS && at <= stop.to);
    const requestedAgain = [...endpoint.requests].filter(([, times]) => times.length > 1);
    console.log(
      `events graceful stops (${nodeRedPackage}): ${STOPS} stops, ${emitted.length} events, ${emitted.filter((id) => !seen.has(id)).length} lost, ${lines.length - seen.size} written twice, ${requestedAgain.length} requested again (${stops.map((stop) => stop.open).join('/')} requests open at the stops)`,
    );
    expect(stops.every((stop) => stop.open > 0)).toBe(true);
    expect(emitted.filter((id) => !seen.has(id))).toEqual([]);
    // Finished work never comes again: every event is written exactly once.
    expect(lines.length).toBe(seen.size);
    // What does come again is what a stop cut mid-flow, each at most once per stop.
    expect(requestedAgain.filter(([, times]) => !cutByAStop(times[0] ?? 0)).map(([id]) => id)).toEqual([]);
    expect(Math.max(0, ...requestedAgain.map(([, times]) => times.length))).toBeLessThanOrEqual(STOPS + 1);
  }, 300_000);
});

/**
 * A flow that batches: a join makes one message of up to 4 events (or what came within 0.5 s),
 * a split makes one request per event of it again, and each answer is written. The join hands on
 * only the first event's ids; the others ride on its message ("when the flow is done", no
 * wiring). SIGKILLed while joined messages wait at the endpoint: every event reaches the end.
 * Before the joined events rode on the message made of them, they counted as done at the join:
 * this test then lost 231 of 965 events (Node-RED 5) and 451 of 1,033 (Node-RED 4).
 */
function joinedTicketFlow(sim: Simulator, url: string, file: string): FlowNode[] {
  // The ticket flow's request, stamp and file nodes, after a join and a split.
  const [tabNode, server, , ticket, stamp, write] = ticketFlow(sim, 'done', url, file);
  return [
    tabNode as FlowNode,
    server as FlowNode,
    eventsNode('events', ['join-4'], { ackMode: 'done', maxInFlight: IN_FLIGHT }),
    // Not named as its id: Node-RED takes a property equal to a node's id for a reference to it.
    joinNode('join-4', ['each'], { name: 'batch', timeout: '0.5', count: '4' }),
    splitNode('each', ['ticket']),
    ticket as FlowNode,
    stamp as FlowNode,
    write as FlowNode,
  ];
}

describe(`events node across SIGKILLs, events joined into one message (${nodeRedPackage})`, () => {
  const rig = ticketRig(59);
  // 6 on the current Node-RED, 3 on Node-RED 4 (the same node code; its join works the same way).
  const killCount =
    process.env.CRASH_KILLS !== undefined
      ? Number(process.env.CRASH_KILLS)
      : nodeRedPackage === 'node-red'
        ? 6
        : 3;

  it(`${killCount} kills under 40 events/s, 4 events a joined message: every event reaches the end`, async () => {
    const { sim, red, endpoint, seed, random } = rig;
    console.log(`events joined crash-restart seed ${seed} (CRASH_SEED=${seed} repeats these kill points)`);
    const sinkFile = join(red.userDir, 'tickets.log');
    await red.start();
    await red.deploy(joinedTicketFlow(sim, endpoint.url, sinkFile));
    await waitUntil(() => sim.control.stats().openSockets === 1, 15_000, 'connected');
    await pause(1_100);
    const stream = streamEvents(sim, 25);
    const { emitted } = stream;
    let joinedAtKills = 0;
    try {
      await pause(2_000);
      for (let kill = 1; kill <= killCount; kill++) {
        // Past a save of the position (every SAVE_MS), so a kill finds what the join sent
        // counted, with its requests still open.
        await pause(SAVE_MS + random() * 1_000);
        await waitUntil(() => endpoint.open > 1, 60_000, `joined requests in flight before kill ${kill}`);
        joinedAtKills += endpoint.open;
        await red.kill();
        await pause(random() * 500);
        await red.start();
      }
      await pause(500);
    } finally {
      await stream.stop();
    }
    await allThrough(rig, sinkFile);
    const seen = new Set(sinkLines(sinkFile).map(([id]) => id));
    const lost = emitted.filter((id) => !seen.has(id));
    console.log(
      `events joined crash-restart (${nodeRedPackage}): ${killCount} kills, ${emitted.length} events, ${lost.length} lost (${joinedAtKills} requests open at the kills)`,
    );
    expect(emitted.length).toBeGreaterThan(killCount * 30);
    expect(lost).toEqual([]);
  }, 300_000);
});
