// Record ids across demo restarts. A real service never reuses a record id, and the hosts keep
// state keyed by it: n8n refuses a second execution under an event's deduplication key, so a
// restarted simulator counting from 1 again would have its events silently skipped. The demo
// keeps the next free id in its folder and starts every simulator there.
//
// The file is written at start, every few seconds while running and once more after a clean
// stop. A run that ended without its last write (killed, crashed) left `running: true`: the next
// one starts far enough above the last written id to clear whatever that run handed out since.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** How often the running demo writes its newest id. */
export const FLUSH_MS = 2_000;
/**
 * Ids skipped after a run that did not stop cleanly: more than any rate the demo allows
 * (DEMO_RATE ≤ 1000/s) could hand out between two writes.
 */
export const UNCLEAN_MARGIN = 1_000_000;

/** Where the demo in `dir` (DEMO_DIR) keeps its next record id. */
export function recordIdFile(dir) {
  return join(dir, 'simulator-record-ids.json');
}

/**
 * The record id the next simulator starts at: 1 for a new demo folder, the next free id after a
 * clean stop, that plus {@link UNCLEAN_MARGIN} after an unclean one. An unreadable file gives the
 * current time in milliseconds (above any id a demo run counting from 1 can have reached) and a
 * note for the log.
 * @returns {{ firstRecordId: number, note?: string }}
 */
export function nextFirstRecordId(file) {
  if (!existsSync(file)) return { firstRecordId: 1 };
  let saved;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    saved = undefined;
  }
  const next = saved?.nextRecordId;
  if (!Number.isSafeInteger(next) || next < 1) {
    return {
      firstRecordId: Date.now(),
      note: `${file} is unreadable: record ids start at the current time in ms, above those of earlier runs`,
    };
  }
  if (saved.running === true) {
    return {
      firstRecordId: next + UNCLEAN_MARGIN,
      note: `the last run did not stop cleanly: record ids start ${UNCLEAN_MARGIN} above its last written one`,
    };
  }
  return { firstRecordId: next };
}

function write(file, state) {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state)}\n`);
  // A rename is atomic: a crash mid-write never leaves half a file.
  renameSync(temporary, file);
}

/**
 * Keeps `file` up to date with the simulator's next free record id while it runs; call the
 * returned function after the simulator stopped (the final, clean write).
 * @param {string} file
 * @param {{ control: { stats(): { lastRecordId: number } } }} sim
 * @returns {() => void}
 */
export function keepRecordIds(file, sim) {
  let written = 0;
  const flush = (running) => {
    const nextRecordId = sim.control.stats().lastRecordId + 1;
    if (running && nextRecordId === written) return;
    write(file, { nextRecordId, running });
    written = nextRecordId;
  };
  flush(true);
  const timer = setInterval(() => flush(true), FLUSH_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    flush(false);
  };
}
