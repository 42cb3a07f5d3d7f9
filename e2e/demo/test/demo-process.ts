import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface RunningDemo {
  child: ChildProcess;
  /** Everything the demo printed so far (stdout and stderr, colour codes removed). */
  output(): string;
  editorUrl: string;
  simulatorUrl: string;
  /** Seconds from spawn to the printed "Press Ctrl-C" line. */
  readySeconds: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The environment of a user's shell: without what vitest sets for its workers (`VITEST*`, `TEST`,
 * `NODE_ENV=test`). n8n reads NODE_ENV=test as its own test mode, in which `n8n start` exits at
 * once with code 1 and prints nothing.
 */
function shellEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name, value]) =>
        !/^VITEST/.test(name) && name !== 'TEST' && !(name === 'NODE_ENV' && value === 'test'),
    ),
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removes the banner's colour codes
const ansi = /\x1b\[[0-9;]*m/g;

/**
 * Starts `node scripts/demo.mjs` exactly as `npm start` does once set-up and build are done
 * (scripts/run.mjs runs it with Node 24 from the repository root), with the given environment;
 * `script` ['scripts', 'demo', 'n8n.mjs'] is `npm run demo:n8n`'s.
 */
export async function startDemo(
  env: Record<string, string>,
  timeoutMs = 90_000,
  script = ['scripts', 'demo.mjs'],
): Promise<RunningDemo> {
  const started = Date.now();
  const child = spawn(process.execPath, [join(repoRoot, ...script)], {
    cwd: repoRoot,
    env: { ...shellEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const append = (chunk: Buffer) => {
    text += chunk.toString('utf8').replace(ansi, '');
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`demo not ready in ${timeoutMs} ms:\n${text}`)), timeoutMs);
    const check = () => {
      if (text.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout?.on('data', check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      fail(new Error(`demo exited early (code ${code}, signal ${signal}):\n${text}`));
    });
  });
  const editorUrl = /(?:Node-RED|n8n) editor:\s+(http\S+)/.exec(text)?.[1];
  const simulatorUrl = /simulator site:\s+(http\S+)/.exec(text)?.[1];
  if (!editorUrl || !simulatorUrl) throw new Error(`addresses not found in the demo's output:\n${text}`);
  return {
    child,
    output: () => text,
    editorUrl,
    simulatorUrl,
    readySeconds: (Date.now() - started) / 1000,
    exited,
  };
}
