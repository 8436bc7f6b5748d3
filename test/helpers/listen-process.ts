import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll } from 'vitest';
import { spawnCli } from './cli.js';

export interface Listening {
  /** A URL that reaches the listener from this machine. */
  url: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code and the full output. */
  stop(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

const running = new Set<ChildProcess>();

// A failed test must not leave listeners behind.
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** Spawn the built `listings listen --port 0 ...args` and wait for the URL on its stderr. */
export async function startListen(args: string[], env: Record<string, string> = {}): Promise<Listening> {
  const child = spawnCli(['listen', '--port', '0', ...args], { env });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = once(child, 'close') as Promise<[number | null]>;
  for (let waited = 0; !/receiving callbacks at (\S+)/.test(stderr); waited += 20) {
    if (waited > 10_000 || child.exitCode !== null) throw new Error(`listen did not start\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // A wildcard host is printed as bound, with the URL that reaches it from this machine.
  const url = /from this machine (\S+)\)/.exec(stderr)?.[1] ?? /receiving callbacks at (\S+)/.exec(stderr)?.[1] ?? '';
  return {
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      const [code] = await closed;
      running.delete(child);
      return { code, stdout, stderr };
    },
  };
}

export { until } from './until.js';

/** The JSON lines of an NDJSON file (none when it does not exist). */
export function ndjsonLines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** POST raw bytes; resolves with the status. `chunked` sends no Content-Length. */
export function post(url: string, body: Buffer | string, headers: Record<string, string> = {}, chunked = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    if (chunked) {
      req.write(body);
      req.end();
    } else {
      req.setHeader('content-length', String(Buffer.byteLength(body)));
      req.end(body);
    }
  });
}
