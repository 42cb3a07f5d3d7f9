import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkError } from '../src/index.js';
import { client, optionsFor, simulator } from './helpers.js';

// The simulator speaks plain HTTP, so a small TLS terminator with a throwaway self-signed
// certificate (made with openssl at test time, never stored) sits in front of it.
let cert: string;
let key: string;

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'core-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    key = readFileSync(join(dir, 'key.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

let terminator: Server | undefined;
afterAll(async () => {
  await new Promise((resolve) => terminator?.close(resolve) ?? resolve(undefined));
});

async function tlsInFrontOf(port: number): Promise<string> {
  terminator = createServer({ key, cert }, (req, res) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => terminator?.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(terminator.address() as AddressInfo).port}`;
}

describe('TLS of the default transport', () => {
  it('verifies certificates by default, accepts a custom CA, and skips verification only when told', async () => {
    const sim = await simulator({ form: 'extended' });
    const url = await tlsInFrontOf(Number(new URL(sim.siteUrl).port));

    const strict = client(optionsFor(sim, { url, retry: { attempts: 1 } }));
    const error = await strict.tasks.list().catch((e: unknown) => e);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/SELF_SIGNED|self-signed|certificate/i);

    const withCa = client(optionsFor(sim, { url, tls: { ca: cert } }));
    expect((await withCa.tasks.list()).length).toBe(sim.world.tasks.length);

    const insecure = client(optionsFor(sim, { url, tls: { rejectUnauthorized: false } }));
    expect((await insecure.locations.list()).length).toBe(sim.world.locations.length);
  });
});
