// Runs the demo in the foreground of `npm start`. Ctrl-C reaches it through the process group, and
// a SIGINT, SIGTERM or SIGHUP sent to this process alone is passed on. npm sent SIGTERM passes
// nothing on: it exits, its shell with it, and leaves this process under PID 1 with the demo
// holding its ports. So the parent's going counts as a SIGTERM too, also
// when it went before the demo started (during the set-up or the build).
import { spawn } from 'node:child_process';
import { exitWithParent } from './shutdown.mjs';

/**
 * Spawns `command` with this process's stdio and exits as it exits.
 * @param {string} command
 * @param {string[]} args
 * @param {{ env: NodeJS.ProcessEnv, cwd: string, parent: number }} options `parent`: the pid that
 *   started this process, read before any slow step it may not outlive
 */
export function inForeground(command, args, { env, cwd, parent }) {
  const child = spawn(command, args, { stdio: 'inherit', env, cwd });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  exitWithParent(() => child.kill('SIGTERM'), parent);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
  return child;
}
