/**
 * P7: size of the tarballs users install, packed by `pnpm pack` (what publishing uploads, with
 * `workspace:` ranges rewritten) from the built packages into a temp folder. A size is exact, so
 * one pack per package suffices.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { type Figure, makeFigure } from './lib/figure.ts';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const packages = [
  { id: 'P7-n8n', dir: 'packages/n8n-nodes', label: 'n8n package' },
  { id: 'P7-node-red', dir: 'packages/node-red-nodes', label: 'Node-RED package' },
];

/** Sum of the file sizes in a (ustar) tarball: 512-byte headers, size in octal at offset 124. */
function unpackedBytes(tgz: Buffer): { bytes: number; files: number } {
  const tar = gunzipSync(tgz);
  let bytes = 0;
  let files = 0;
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const size =
      Number.parseInt(header.subarray(124, 136).toString('ascii').replace(/\0.*$/, '').trim(), 8) || 0;
    if (header[156] === 0x30 || header[156] === 0) {
      bytes += size;
      files++;
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return { bytes, files };
}

export async function p7PackedSize(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const pkg of packages) {
    const destination = mkdtempSync(join(tmpdir(), 'observation-bench-pack-'));
    try {
      // pnpm is the toolchain's (on PATH when run through npm run bench).
      const { stdout } = await run('pnpm', ['pack', '--pack-destination', destination, '--json'], {
        cwd: join(repoRoot, pkg.dir),
        maxBuffer: 16 * 1024 * 1024,
      });
      const { filename, name } = JSON.parse(stdout) as { filename: string; name: string };
      const tarball = filename.startsWith('/') ? filename : join(destination, filename);
      const size = statSync(tarball).size;
      const unpacked = unpackedBytes(readFileSync(tarball));
      figures.push(
        makeFigure({
          id: pkg.id,
          scenario: `packed size, ${pkg.label}`,
          unit: 'KB',
          digits: 1,
          runs: [size / 1000],
          target: { kind: 'value-below', threshold: 250 },
          details: {
            bytes: size,
            unpackedBytes: unpacked.bytes,
            files: unpacked.files,
            package: name,
          },
        }),
      );
    } finally {
      rmSync(destination, { recursive: true, force: true });
    }
  }
  return figures;
}
