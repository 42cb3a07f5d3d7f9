import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as jpeg from 'jpeg-js';

/**
 * Writes a 1920×1080 JPEG that codes like a camera frame (smooth gradients, fine sensor noise,
 * ~0.5 MB at quality 85) into `dir`, and returns its path: served as every event's snapshot
 * (`snapshotFile`), annotation, thumbnails and downloads meet a real camera's sizes.
 */
export function writeCameraFrame(dir: string): string {
  const width = 1920;
  const height = 1080;
  const data = Buffer.alloc(width * height * 4);
  let seed = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const noise = (seed >> 16) & 15;
      data[i] = (x / width) * 200 + noise;
      data[i + 1] = (y / height) * 180 + noise;
      data[i + 2] = 90 + ((x + y) % 64) + noise;
      data[i + 3] = 255;
    }
  }
  const file = join(dir, 'camera-1080p.jpg');
  writeFileSync(file, jpeg.encode({ data, width, height }, 85).data);
  return file;
}
