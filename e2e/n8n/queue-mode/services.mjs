// Redis and PostgreSQL for the queue-mode e2e: Debian's binaries (scripts/run.mjs installs them
// with apt on root machines), each started on a free loopback port with its data in a temporary
// folder and stopped at the end. Nothing of the machine's own services is used or changed.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, until } from './process-tools.mjs';

export const redisServerBin = '/usr/bin/redis-server';
const postgresRoot = '/usr/lib/postgresql';

/** Debian's PostgreSQL binaries (the newest installed major version), or undefined. */
export function postgresBinDir() {
  if (!existsSync(postgresRoot)) return undefined;
  const versions = readdirSync(postgresRoot)
    .filter((name) => existsSync(join(postgresRoot, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(postgresRoot, versions[0], 'bin') : undefined;
}

/** Why the queue-mode e2e cannot run here, or undefined when it can. */
export function missingServices() {
  const missing = [];
  if (!existsSync(redisServerBin)) missing.push(`redis-server (${redisServerBin})`);
  if (!postgresBinDir()) missing.push(`PostgreSQL (${postgresRoot}/<version>/bin)`);
  if (missing.length === 0) return undefined;
  return `${missing.join(' and ')} not installed: \`npm test\` installs Debian's redis-server and postgresql with apt on root machines (scripts/run.mjs); elsewhere install them first`;
}

/** Redis on a free port, no persistence (the queue lives only for the test). */
export async function startRedis(dir) {
  const port = await freePort();
  const child = spawn(
    redisServerBin,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    output += chunk;
  });
  await until(() => /Ready to accept connections/.test(output) || child.exitCode !== null, 15_000);
  if (child.exitCode !== null) throw new Error(`redis-server exited: ${output.slice(-800)}`);
  return {
    port,
    stop: () => stopChild(child),
  };
}

/**
 * A PostgreSQL cluster in `dir`. PostgreSQL refuses to run as root, so on a root machine the
 * cluster belongs to Debian's `postgres` user and every server command runs through `runuser`;
 * the e2e itself connects over TCP as the cluster's superuser `n8n` (trust auth on loopback).
 */
export async function startPostgres() {
  const bin = postgresBinDir();
  // Its own temporary folder: on a root machine the postgres user must be able to reach it.
  const dir = mkdtempSync(join(tmpdir(), 'observation-n8n-pg-'));
  const asRoot = process.getuid?.() === 0;
  // By absolute path: a minimal PATH (CI's, `env -i`) often lacks the sbin folders.
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser'].find((path) => existsSync(path)) ?? 'runuser';
  const asOwner = (command, args) =>
    asRoot ? [runuser, ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
  const dataDir = join(dir, 'pgdata');
  const socketDir = join(dir, 'pgsocket');
  mkdirSync(socketDir, { recursive: true });
  if (asRoot) {
    chownSync(dir, uidOf('postgres'), gidOf('postgres'));
    chownSync(socketDir, uidOf('postgres'), gidOf('postgres'));
  }
  const [initCommand, initArgs] = asOwner('initdb', [
    '-D',
    dataDir,
    '-U',
    'n8n',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const init = spawnSync(initCommand, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.error?.message ?? init.stderr.slice(-1200)}`);
  const port = await freePort();
  // fsync off: only n8n processes are killed in this test, never the database, so the OS cache
  // is as durable as the disk here and the test does not wait on the disk.
  const [command, args] = asOwner('postgres', [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-k',
    socketDir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'max_connections=200',
  ]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    output += chunk;
  });
  await until(() => /ready to accept connections/.test(output) || child.exitCode !== null, 30_000);
  if (child.exitCode !== null) throw new Error(`postgres exited: ${output.slice(-1200)}`);
  const psql = (sql, database = 'n8n') => runPsql(bin, port, database, sql);
  const created = runPsql(bin, port, 'postgres', 'CREATE DATABASE n8n');
  if (created.status !== 0) throw new Error(`CREATE DATABASE failed: ${created.stderr}`);
  return {
    port,
    user: 'n8n',
    database: 'n8n',
    psql,
    async stop() {
      // Through pg_ctl: on a root machine `child` is runuser, not the server itself.
      const [stopCommand, stopArgs] = asOwner('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      spawnSync(stopCommand, stopArgs, { stdio: 'ignore' });
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One query through psql: rows as arrays of fields. Unit and record separators keep fields
 * with newlines (execution data) intact.
 */
function runPsql(bin, port, database, sql) {
  const result = spawnSync(
    join(bin, 'psql'),
    [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'n8n',
      '-d',
      database,
      '-X',
      '-A',
      '-t',
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-F',
      '\x1f',
      '-R',
      '\x1e',
      '-c',
      sql,
    ],
    { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 },
  );
  const rows =
    result.status === 0
      ? result.stdout
          .replace(/\n$/, '')
          .split('\x1e')
          .filter((row) => row.length > 0)
          .map((row) => row.split('\x1f'))
      : [];
  return { status: result.status, stderr: result.stderr, rows };
}

function idOf(name, field) {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${name}:`));
  if (!line) throw new Error(`no user ${name} on this machine (Debian's postgresql package creates it)`);
  return Number(line.split(':')[field]);
}
const uidOf = (name) => idOf(name, 2);
const gidOf = (name) => idOf(name, 3);

function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
