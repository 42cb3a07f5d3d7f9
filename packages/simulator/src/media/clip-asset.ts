/** The sample clip served for every event's video_url (generated once with ffmpeg, see assets/README.md). */
import { existsSync, readFileSync } from 'node:fs';

let cached: Buffer | undefined;

export function loadClip(): Buffer {
  if (cached) return cached;
  // From src/media/ (tests) the package root is two levels up, from the bundled dist/ one level.
  for (const candidate of ['../../assets/event-clip.mp4', '../assets/event-clip.mp4']) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(url)) {
      cached = readFileSync(url);
      return cached;
    }
  }
  throw new Error('simulator asset event-clip.mp4 is missing: the package was not installed completely');
}
