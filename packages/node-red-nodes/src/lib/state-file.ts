import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stableHash } from '@observation-service/core';

/** Folder under Node-RED's user directory that holds one file per node (not Node-RED's `context/`, which it cleans). */
export const STATE_FOLDER = 'observation-state';
const FORMAT = 'node-red-observation-state';
const VERSION = 1;

/** What a state file is for: the node (by id and type) and the key of the value in it. */
export interface StateFileOwner {
  id: string;
  type: string;
  key: string;
}

/**
 * Where a node's state file is: `<userDir>/observation-state/<node id>.json`. Ids are hex (with a
 * `-` inside subflows) in every flow the editor writes; one typed by hand is hashed, so that no id
 * can name a path outside the folder or a name a file system refuses.
 */
export function stateFilePath(userDir: string, nodeId: string): string {
  const name = /^[A-Za-z0-9_-]{1,100}$/.test(nodeId) ? nodeId : `id-${stableHash(nodeId)}`;
  return join(userDir, STATE_FOLDER, `${name}.json`);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One node's state in a small JSON file, written synchronously and atomically (a temp file renamed
 * over the old one): after a crash, even mid-write, the file holds the last completed save, and a
 * save that returned is on disk as far as the process is concerned (no power-loss fsync: a
 * once-a-second fsync costs an SD card far more than the write). Each write costs a
 * `JSON.stringify`, a write and a rename of the value's size; an unchanged value is not written.
 */
export class StateFile {
  /** The value as last read or written, as JSON: an unchanged save is skipped. */
  private written: string | undefined;
  private folderReady = false;

  constructor(
    readonly path: string,
    private readonly owner: StateFileOwner,
  ) {}

  /**
   * The stored value, or undefined when there is none. A file that cannot be used (not JSON, not
   * ours, another key) is moved aside to `<file>.corrupt`, so that it is reported once, and the
   * error says so; a file that cannot be read throws as it is.
   */
  read(): unknown {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const parsed = this.parse(text);
    if ('value' in parsed) {
      this.written = JSON.stringify(parsed.value);
      return parsed.value;
    }
    const aside = `${this.path}.corrupt`;
    let moved = '';
    try {
      renameSync(this.path, aside);
      moved = `; it was moved to ${aside}`;
    } catch (error) {
      moved = `; moving it to ${aside} failed (${errorText(error)})`;
    }
    throw new Error(`The stored state in ${this.path} cannot be used: ${parsed.problem}${moved}`);
  }

  /** Writes the value unless it is the one already stored; throws what the file system refused. */
  write(value: unknown): void {
    const json = JSON.stringify(value);
    if (json === this.written) return;
    const meta = {
      format: FORMAT,
      version: VERSION,
      node: this.owner.id,
      type: this.owner.type,
      key: this.owner.key,
      savedAt: new Date().toISOString(),
    };
    // The value is serialized once, for the comparison above and for the file.
    const text = `${JSON.stringify(meta).slice(0, -1)},"value":${json ?? 'null'}}\n`;
    const temp = `${this.path}.tmp`;
    try {
      if (!this.folderReady) mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(temp, text);
    } catch (error) {
      // The folder went away (removed by hand) since it was made: make it again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !this.folderReady) throw error;
      mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(temp, text);
    }
    this.folderReady = true;
    renameSync(temp, this.path);
    this.written = json;
  }

  remove(): void {
    rmSync(this.path, { force: true });
    rmSync(`${this.path}.tmp`, { force: true });
    this.written = undefined;
  }

  private parse(text: string): { value: unknown } | { problem: string } {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return { problem: `it is not JSON (${errorText(error)})` };
    }
    const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
    if (record.format !== FORMAT || !('value' in record)) {
      return { problem: 'it is not a state file of these nodes' };
    }
    if (record.version !== VERSION) {
      return { problem: `it has version ${JSON.stringify(record.version)}; this version reads ${VERSION}` };
    }
    if (record.key !== this.owner.key) {
      return { problem: `it holds ${JSON.stringify(record.key)}, not ${JSON.stringify(this.owner.key)}` };
    }
    return { value: record.value };
  }
}
