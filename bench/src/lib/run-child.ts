import { spawn } from 'node:child_process';

/** Runs a child script of the suite with the toolchain's node; resolves with its last stdout line as JSON. */
export function runChild<T>(script: string, args: string[], extraNodeArgs: string[] = []): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, [...extraNodeArgs, script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`${script} exited with ${code ?? signal}: ${last.slice(0, 500)}`));
      else {
        try {
          resolve(JSON.parse(last) as T);
        } catch {
          reject(new Error(`${script} printed no JSON result: ${last.slice(0, 500)}`));
        }
      }
    });
  });
}
