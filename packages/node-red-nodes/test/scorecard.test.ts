import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script (also run from the command line), no type declarations
import { runScorecard } from '../scripts/scorecard.mjs';
import { packageRoot } from './harness/node-red.js';

interface Result {
  scorecard: Record<string, { test?: boolean; version?: string; packages?: string[] }>;
  log: string;
  failed: string[];
  manifest: { dependencies: Record<string, string>; engines: { node: string } };
  packedBytes: number;
  unpacked: { bytes: number; files: number };
}

const core = JSON.parse(readFileSync(join(packageRoot, '..', 'core', 'package.json'), 'utf8')) as {
  engines: { node: string };
};

describe('packed tarball and the flow library scorecard (node-red-dev validate)', () => {
  it('passes every scorecard check except the two explained below', { timeout: 120_000 }, () => {
    const result = runScorecard() as Result;
    console.log(
      `${result.log}\nscorecard failed: ${result.failed.join(', ') || 'none'}; packed ${result.packedBytes} bytes`,
    );

    // The published manifest names core by version, never workspace:*.
    expect(result.manifest.dependencies['@observation-service/core']).toMatch(/^\d+\.\d+\.\d+/);
    for (const check of ['P01', 'P03', 'P04', 'P05', 'P06', 'P08', 'N01', 'N02', 'D01', 'D02']) {
      expect(result.scorecard[check]?.test, check).toBe(true);
    }

    // Known, explained failures, each asserted on its cause so a change shows up here:
    // P07: our engines.node is core's (undici 8 needs Node >= 22.19), above the Node 22.9 that
    //      Node-RED 5 accepts. Passes once core supports the same Node range as Node-RED.
    // D03: core is a workspace package not yet on the npm registry, so "latest" is unknown.
    //      Passes once core is published.
    const unexplained = result.failed.filter((check) => check !== 'P07' && check !== 'D03');
    expect(unexplained).toEqual([]);
    if (result.failed.includes('P07')) expect(result.manifest.engines.node).toBe(core.engines.node);
    if (result.failed.includes('D03'))
      expect(result.scorecard.D03?.packages).toEqual(['@observation-service/core']);
    // Small: code, editor files, catalogs, icons, examples, README and the screenshot.
    expect(result.packedBytes).toBeLessThan(400 * 1024);
  });
});
