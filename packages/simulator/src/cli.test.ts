import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CliError, parseCliArgs } from './cli-args.js';

// The CLI is tested as users run it: the built bin in its own process (turbo builds before tests).
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe('parseCliArgs', () => {
  it('defaults to port 8080 and rate 2, reads every option in both --flag value and --flag=value forms', () => {
    expect(parseCliArgs([]).options).toEqual({ port: 8080, rate: 2 });
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

  it.each([
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
