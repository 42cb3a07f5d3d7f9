import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FlowNode } from './node-red.js';
import {
  coreNodesOnly,
  nodeRedPackage,
  packageRoot,
  testNodesDir,
  writeEditorUserSettings,
} from './node-red.js';

const require = createRequire(import.meta.url);

export interface ProcessOptions {
  /** Node-RED `contextStorage` setting; unset, as in a fresh settings.js. */
  contextStorage?: Record<string, unknown>;
  /**
   * Our package as users get it: not loaded from the work tree, installed through Manage palette
   * (npm in the user dir, which reads the user dir's `.npmrc`) from this catalogue's list.
   */
  palette?: { catalogue: string };
}

/**
 * Node-RED as a user runs it: its own `red.js` in a child process, with a settings file in a
 * temporary user directory that outlives the process. Stopping it (SIGINT, as Ctrl-C or a service
 * manager does) closes every node; killing it (SIGKILL) does not, as a crash or a power cut. The
 * next `start()` on the same user directory is a real restart: nothing survives but the files.
 */
export class NodeRedProcess {
  #child: ChildProcess | undefined;
  #log = '';
  baseUrl = '';

  private constructor(
    readonly userDir: string,
    readonly settingsFile: string,
  ) {}

  /** A new user directory with a settings file; the runtime is not started yet. */
  static create(options: ProcessOptions = {}): NodeRedProcess {
    const userDir = mkdtempSync(join(tmpdir(), 'observation-node-red-process-'));
    // An editor opened on it (no admin auth: user `_`) shows no tips, as the harness's.
    writeEditorUserSettings(userDir, ['_']);
    const red = new NodeRedProcess(userDir, join(userDir, 'test-settings.js'));
    red.configure(options);
    return red;
  }

  /** Writes the settings file the next start reads (as a user edits settings.js between runs). */
  configure(options: ProcessOptions): void {
    const settings = {
      uiHost: '127.0.0.1',
      flowFile: 'flows.json',
      credentialSecret: 'test-credential-secret',
      httpNodeRoot: false,
      // The test-only nodes too (a synchronous file sink for crash tests).
      nodesDir: options.palette ? [testNodesDir] : [packageRoot, testNodesDir],
      logging: { console: { level: 'info', metrics: false, audit: false } },
      telemetry: { enabled: false },
      externalModules: { autoInstall: false, palette: { allowInstall: options.palette !== undefined } },
      editorTheme: {
        tours: false,
        projects: { enabled: false },
        palette: { catalogues: options.palette ? [options.palette.catalogue] : [] },
      },
      ...(options.contextStorage ? { contextStorage: options.contextStorage } : {}),
      coreNodesDir: coreNodesOnly(this.userDir),
    };
    writeFileSync(this.settingsFile, `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
  }

  /** Everything the runtime logged since it was last started. */
  get log(): string {
    return this.#log;
  }

  /** Starts `red.js` on an ephemeral port and waits until the flows (if any) are started. */
  async start(timeoutMs = 30_000): Promise<void> {
    if (this.#child) throw new Error('already running');
    const redJs = join(require.resolve(`${nodeRedPackage}/package.json`), '..', 'red.js');
    this.#log = '';
    // Without the npm settings pnpm hands the test run (npm_config_registry and the like): the
    // npm Node-RED runs for Manage palette reads the user dir's .npmrc, as on a user's machine.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
    const child = spawn(
      process.execPath,
      [redJs, '--settings', this.settingsFile, '--userDir', this.userDir, '--port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'], env },
    );
    this.#child = child;
    const collect = (chunk: Buffer) => {
      this.#log += chunk.toString('utf8');
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const started = Date.now();
    while (!/Started flows/.test(this.#log) || !/Server now running at (\S+)/.test(this.#log)) {
      if (child.exitCode !== null) throw new Error(`Node-RED exited (${child.exitCode}):\n${this.#log}`);
      if (Date.now() - started > timeoutMs) throw new Error(`Node-RED did not start:\n${this.#log}`);
      await new Promise((wake) => setTimeout(wake, 50));
    }
    this.baseUrl = (/Server now running at (\S+)/.exec(this.#log)?.[1] ?? '').replace(/\/$/, '');
  }

  /** Deploys flows through the editor API, as the Deploy button does, and waits for them to start. */
  async deploy(flows: FlowNode[]): Promise<void> {
    const before = this.#log.split('Started flows').length;
    const response = await fetch(`${this.baseUrl}/flows`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'Node-RED-API-Version': 'v2',
        'Node-RED-Deployment-Type': 'full',
      },
      body: JSON.stringify({ flows }),
    });
    if (response.status !== 200)
      throw new Error(`deploy failed: ${response.status} ${await response.text()}`);
    await this.waitForLog(() => this.#log.split('Started flows').length > before, 'the deployed flows');
  }

  async waitForLog(done: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const started = Date.now();
    while (!done()) {
      if (Date.now() - started > timeoutMs) throw new Error(`${what}: not seen in the log:\n${this.#log}`);
      await new Promise((wake) => setTimeout(wake, 20));
    }
  }

  /** Stops Node-RED as Ctrl-C does: nodes close, context stores flush, the process exits. */
  stop(): Promise<void> {
    return this.end('SIGINT');
  }

  /** Kills Node-RED outright (a crash): nothing closes, nothing flushes. */
  kill(): Promise<void> {
    return this.end('SIGKILL');
  }

  /** Stops Node-RED if it runs and removes its user directory. */
  async dispose(): Promise<void> {
    if (this.#child) await this.kill();
    rmSync(this.userDir, { recursive: true, force: true });
  }

  /** A file of the user directory, or undefined when it does not exist. */
  readFile(...path: string[]): string | undefined {
    const file = join(this.userDir, ...path);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill(signal);
    await exited;
  }
}
