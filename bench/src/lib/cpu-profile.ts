import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * `--cpu-prof <dir>`: V8's sampling profiler around chosen parts of a scenario only (a measured
 * burst of one client), so a profile holds what that client costs and not the set-up, the other
 * client or the waits between rounds. Each part is written as `<name>-<n>.cpuprofile`; read them
 * with `src/cpuprofile-top.ts`. A profiled run's figures are not the suite's: sampling costs CPU.
 */
export class CpuProfiler {
  private readonly session = new Session();
  private readonly written = new Map<string, number>();
  private connected = false;
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  async around<T>(name: string, part: () => Promise<T>): Promise<T> {
    if (!this.connected) {
      this.session.connect();
      await this.session.post('Profiler.enable');
      // 100 µs: a burst of 50,000 events takes about 0.3 s, a few thousand samples.
      await this.session.post('Profiler.setSamplingInterval', { interval: 100 });
      this.connected = true;
    }
    await this.session.post('Profiler.start');
    try {
      return await part();
    } finally {
      const { profile } = await this.session.post('Profiler.stop');
      const n = (this.written.get(name) ?? 0) + 1;
      this.written.set(name, n);
      writeFileSync(join(this.dir, `${name}-${n}.cpuprofile`), JSON.stringify(profile));
    }
  }
}
