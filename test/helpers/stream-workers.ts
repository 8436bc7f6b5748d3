import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { spawnCli } from './cli.js';
import { publishEnv } from './publish.js';

/** A `listings stream` process of a consumer group, with what it printed so far. */
export interface StreamWorker {
  child: ChildProcess;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  stderr(): string;
  stdout(): string;
}

/**
 * Starts `listings stream kafka://BOOTSTRAP/TOPIC --group GROUP` against the service at `url`, with a short session
 * timeout (the group takes over a dead member's partitions within 6 s), a status line every second and the summary
 * as JSON on stdout. `extra` adds flags (a later one wins).
 */
export function startWorker(bootstrap: string, topic: string, group: string, url: string, cwd: string, extra: string[] = []): StreamWorker {
  const child = spawnCli(['stream', `kafka://${bootstrap}/${topic}`, '--group', group, '--session-timeout', '6000', '--status-interval', '1', '--json', ...extra], { cwd, env: publishEnv(url) });
  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return { child, exited: once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>, stderr: () => stderr, stdout: () => stdout };
}

/** The partitions the worker holds now, from its last assignment line (undefined before its first). */
export function assignedTo(worker: StreamWorker): number[] | undefined {
  const lines = [...worker.stderr().matchAll(/assigned to this process: ([^\n]*)/g)];
  const last = lines.at(-1)?.[1];
  if (last === undefined) return undefined;
  return last.startsWith('none') ? [] : last.split(', ').map(Number);
}

/** The worker's final summary (`--json`), once it has exited. */
export function workerSummary(worker: StreamWorker): { received: number; published: number; dead_lettered: number; end: string } {
  return JSON.parse(worker.stdout().trim().split('\n').at(-1) ?? '{}') as { received: number; published: number; dead_lettered: number; end: string };
}
