// Stopping the demo: the first SIGINT/SIGTERM/SIGHUP closes everything in order and exits 0.
// Ctrl-C in a terminal reaches both npm's run.mjs and this process, and run.mjs passes it on
// too, so repeated signals are expected and ignored; a stop that hangs is cut off after 10 s.

const FORCE_AFTER_MS = 10_000;

/**
 * @param {() => Promise<void>} stop closes every server the demo started
 * @param {string} what names them in the message
 * @returns {(reason: string, exitCode?: number) => void} starts the shutdown (idempotent)
 */
export function onShutdown(stop, what) {
  let stopping = false;
  function shutdown(reason, exitCode = 0) {
    if (stopping) return;
    stopping = true;
    console.log(`\n[demo] ${reason}: stopping ${what} …`);
    const force = setTimeout(() => {
      console.error('[demo] still not stopped after 10 s: exiting anyway');
      process.exit(1);
    }, FORCE_AFTER_MS);
    force.unref();
    stop().then(
      () => {
        console.log('[demo] stopped');
        process.exit(exitCode);
      },
      (error) => {
        console.error(`[demo] error while stopping: ${error instanceof Error ? error.message : error}`);
        process.exit(1);
      },
    );
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => shutdown(signal));
  return shutdown;
}

/**
 * Stops the demo when the process that started it goes away without passing a signal on
 * (killed with SIGKILL, a closed terminal, or npm sent SIGTERM: npm exits, and its shell with it,
 * without telling the script it runs): the demo would otherwise keep its ports. `parent`: the
 * process to outlive no longer than, when it is not the current parent (it may be gone already).
 */
export function exitWithParent(shutdown, parent = process.ppid) {
  if (process.ppid !== parent) {
    shutdown('parent process gone');
    return;
  }
  const timer = setInterval(() => {
    if (process.ppid !== parent) shutdown('parent process gone');
  }, 1000);
  timer.unref();
}
