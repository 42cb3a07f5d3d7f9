// CPU seconds of this process and of every child it has waited for (and, through them, their
// own waited-for children): what a test file or a test task cost the machine, whatever the load
// beside it. Linux keeps both in /proc/self/stat; elsewhere only this process's own is known.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's counters: 100 on every Linux Node supports. */
const ticksPerSecond = 100;

/** This process's CPU seconds, user and system, with its reaped children's. */
export function cpuSecondsWithChildren() {
  const own = process.cpuUsage();
  const ownSeconds = (own.user + own.system) / 1e6;
  let stat;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return ownSeconds;
  }
  // Fields after the command name (which may hold spaces): state is field 3, so cutime (16) and
  // cstime (17) are at 13 and 14 of the rest.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ownSeconds + (Number(rest[13]) + Number(rest[14])) / ticksPerSecond;
}
