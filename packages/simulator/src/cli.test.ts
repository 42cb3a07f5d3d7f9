import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CliError, parseCliArgs } from './cli-args.js';

// The CLI is tested as users run it: the package's bin (which loads the build) in its own process
// (turbo builds before tests).
const cli = fileURLToPath(new URL('../bin/observation-simulator.js', import.meta.url));

describe('parseCliArgs', () => {
  it('defaults to port 8080, rate 2 and realism mild, reads every option in both --flag value and --flag=value forms', () => {
    expect(parseCliArgs([]).options).toEqual({ port: 8080, rate: 2, realism: 'mild' });
    const args = parseCliArgs([
      '--port=0',
      '--host',
      '0.0.0.0',
      '--form',
      'basic',
      '--rate',
      '0.5',
      '--seed',
      '7',
      '--history-size',
      '100',
      '--history-order=asc',
      '--over-limit',
      'clamp',
      '--token-lifetime',
      '60',
      '--email',
      'me@example.com',
      '--password',
      'pw',
      '--json',
    ]);
    expect(args.json).toBe(true);
    expect(args.options).toEqual({
      port: 0,
      realism: 'mild',
      host: '0.0.0.0',
      form: 'basic',
      rate: 0.5,
      seed: 7,
      historySize: 100,
      historyOrder: 'asc',
      overLimit: 'clamp',
      tokenLifetimeMs: 60_000,
      credentials: { email: 'me@example.com', password: 'pw' },
    });
  });

  it('reads the realism flags; a late share or range given alone is completed from the preset', () => {
    expect(
      parseCliArgs([
        '--realism',
        'messy',
        '--camera-latency',
        '100..900',
        '--history-page-cap=7',
        '--numeric-timestamps',
        '--late-share',
        '0.1',
        '--late-ms=1000..2000',
        '--response-latency',
        '50..400',
      ]).options,
    ).toMatchObject({
      realism: 'messy',
      cameraLatencyMs: { min: 100, max: 900 },
      historyPageCap: 7,
      numericTimestamps: true,
      latePublication: { share: 0.1, minMs: 1000, maxMs: 2000 },
      responseLatencyMs: { min: 50, max: 400 },
    });
    expect(parseCliArgs(['--late-share', '0.5']).options.latePublication).toEqual({
      share: 0.5,
      minMs: 5000,
      maxMs: 30_000,
    });
    expect(
      parseCliArgs(['--realism', 'messy', '--late-ms', '60000', '--numeric-timestamps=false']).options,
    ).toMatchObject({
      latePublication: { share: 0.05, minMs: 60_000, maxMs: 60_000 },
      numericTimestamps: false,
    });
    expect(parseCliArgs(['--camera-latency', '0']).options.cameraLatencyMs).toEqual({ min: 0, max: 0 });
    expect(parseCliArgs(['--response-latency=0']).options.responseLatencyMs).toEqual({ min: 0, max: 0 });
    expect(parseCliArgs(['--response-latency', '60000']).options.responseLatencyMs).toEqual({
      min: 60_000,
      max: 60_000,
    });
  });

  it('reads the history and media flags; a media part given alone is completed from the preset', () => {
    expect(
      parseCliArgs([
        '--history-page-bytes',
        '32768',
        '--history-span=120',
        '--history-tasks',
        'active',
        '--snapshot-delay',
        '100..200',
        '--clip-delay=300..400',
        '--media-busy',
        '50',
      ]).options,
    ).toMatchObject({
      historyPageBytes: 32_768,
      historySpanMs: 120_000,
      historyTasks: 'active',
      mediaDelay: { snapshotMs: { min: 100, max: 200 }, clipMs: { min: 300, max: 400 }, busyMs: 50 },
    });
    expect(parseCliArgs(['--snapshot-delay', '0']).options.mediaDelay).toEqual({
      snapshotMs: { min: 0, max: 0 },
      clipMs: { min: 6000, max: 25_000 },
      busyMs: 0,
    });
    expect(parseCliArgs(['--realism', 'messy', '--media-busy', '0']).options.mediaDelay).toEqual({
      snapshotMs: { min: 500, max: 8000 },
      clipMs: { min: 6000, max: 40_000 },
      busyMs: 0,
    });
  });

  it('reads the flags of ties, history lag, upgrade delay and media', () => {
    expect(
      parseCliArgs([
        '--history-ties',
        'per-request',
        '--history-lag=2500',
        '--upgrade-delay',
        '1600',
        '--media',
        'none',
      ]).options,
    ).toMatchObject({ historyTies: 'per-request', historyLagMs: 2500, upgradeDelayMs: 1600, media: 'none' });
    const plain = parseCliArgs([]).options;
    expect([plain.historyTies, plain.historyLagMs, plain.upgradeDelayMs, plain.media]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it.each([
    [['--realism', 'wild'], '--realism must be one of ideal, mild, messy, got "wild"'],
    [
      ['--camera-latency', '900..100'],
      '--camera-latency must be milliseconds as <min>..<max> (min <= max <= 86400000) or one number, got "900..100"',
    ],
    [
      ['--response-latency', '5..70000'],
      '--response-latency must be milliseconds as <min>..<max> (min <= max <= 60000) or one number, got "5..70000"',
    ],
    [
      ['--response-latency', '40-5'],
      '--response-latency must be milliseconds as <min>..<max> (min <= max <= 60000) or one number, got "40-5"',
    ],
    [
      ['--late-ms', 'soon'],
      '--late-ms must be milliseconds as <min>..<max> (min <= max <= 86400000) or one number, got "soon"',
    ],
    [['--late-share', '2'], '--late-share must be a number from 0 to 1, got "2"'],
    [['--history-page-cap', '-1'], '--history-page-cap must be an integer from 0 to 1000000, got "-1"'],
    [
      ['--history-page-bytes', '1.5'],
      '--history-page-bytes must be an integer from 0 to 1073741824, got "1.5"',
    ],
    [['--history-span', '0'], '--history-span must be an integer from 1 to 3153600000, got "0"'],
    [['--history-tasks', 'some'], '--history-tasks must be one of all, active, got "some"'],
    [
      ['--clip-delay', '25000..6000'],
      '--clip-delay must be milliseconds as <min>..<max> (min <= max <= 86400000) or one number, got "25000..6000"',
    ],
    [['--media-busy', '70000'], '--media-busy must be an integer from 0 to 60000, got "70000"'],
    [['--history-ties', 'random'], '--history-ties must be one of id, per-request, got "random"'],
    [['--history-lag', '-5'], '--history-lag must be an integer from 0 to 86400000, got "-5"'],
    [['--upgrade-delay', '1.5'], '--upgrade-delay must be an integer from 0 to 60000, got "1.5"'],
    [['--media', 'empty'], '--media must be one of unique, none, shared, got "empty"'],
    [['--numeric-timestamps=maybe'], '--numeric-timestamps must be one of true, false, got "maybe"'],
    [['--port', 'abc'], '--port must be an integer from 0 to 65535, got "abc"'],
    [['--port', '70000'], '--port must be an integer from 0 to 65535, got "70000"'],
    [['--form', 'modern'], '--form must be one of basic, extended, both, got "modern"'],
    [['--rate', '-1'], '--rate must be a number >= 0 (events per second), got "-1"'],
    [['--rate'], '--rate needs a value'],
    [['--port', '--form'], '--port needs a value'],
    [['--colour', 'red'], 'unknown option "--colour" (see --help)'],
    [['--email', 'a@b.c'], '--email and --password must be given together'],
  ])('rejects %j with a clear message', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(new CliError(message));
  });
});

describe('observation-simulator CLI', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('is built (run `pnpm build` first when running this file alone)', () => {
    expect(existsSync(cli)).toBe(true);
  });

  it('--help prints the usage; bad arguments exit 2 naming the problem', () => {
    const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: observation-simulator');
    expect(help.stdout).toContain('--form <form>');
    const bad = spawnSync(process.execPath, [cli, '--form', 'modern'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--form must be one of basic, extended, both, got "modern"');
  });

  it('prints working addresses, service id, token and demo login, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [cli, '--port', '0', '--rate', '0', '--seed', '3', '--history-size', '50'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    const lines: string[] = [];
    const reader = createInterface({ input: child.stdout });
    for await (const line of reader) {
      lines.push(line);
      if (line.startsWith('Press Ctrl-C')) break;
    }
    const text = lines.join('\n');
    const field = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(text)?.[1] ?? '';
    const apiUrl = field('API');
    const wsUrl = field('WebSocket');
    const serviceId = field('service id');
    const token = field('token');
    expect(apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/apiserver$/);
    expect(text).toContain('demo@observation.local / observation-demo');

    const tasks = await fetch(`${apiUrl}/tasks`, {
      headers: { authorization: `Bearer ${token}`, 'x-service-id': serviceId },
    });
    expect(tasks.status).toBe(200);
    const login = await fetch(`${apiUrl}/users/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'demo@observation.local', password: 'observation-demo' }),
    });
    expect(login.status).toBe(200);
    const ws = new WebSocket(`${wsUrl}/events/realtime/${serviceId}/0?token=${token}`);
    await once(ws, 'open');
    ws.terminate();

    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    await expect(fetch(`${apiUrl}/tasks`)).rejects.toThrow();
  });

  it("runs 'mild' unless told otherwise: history pages are capped at 50, --realism ideal lifts it", async () => {
    const pageLength = async (extra: string[]) => {
      const child = spawn(
        process.execPath,
        [cli, '--port', '0', '--rate', '0', '--history-size', '120', '--json', ...extra],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      children.push(child);
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const info = JSON.parse(line) as Record<string, string>;
      const answer = await fetch(`${info.apiUrl}/events/history?limit=100`, {
        headers: { authorization: `Bearer ${info.token}`, 'x-service-id': info.serviceId as string },
      });
      child.kill('SIGTERM');
      return ((await answer.json()) as unknown[]).length;
    };
    expect(await pageLength([])).toBe(50);
    expect(await pageLength(['--realism', 'ideal'])).toBe(100);
  });

  it('--json prints one machine-readable line', async () => {
    const child = spawn(process.execPath, [cli, '--port', '0', '--form', 'basic', '--rate', '0', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const info = JSON.parse(line) as Record<string, string>;
    expect(info.form).toBe('basic');
    const answer = await fetch(`${info.apiUrl}/tasks/1`, {
      headers: { authorization: `Bearer ${info.token}` },
    });
    expect(answer.status).toBe(200);
    const stats = await fetch(`${info.controlUrl}/stats`);
    expect(stats.status).toBe(200);
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });
});
