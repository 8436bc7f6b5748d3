import type { ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';
import type { SandboxStats } from '../../src/sandbox/types.js';
import { spawnCli } from './cli.js';

export interface SandboxProcess {
  /** Base URL printed by the sandbox, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The counts, read over HTTP from `/_sandbox/stats`. */
  stats(): Promise<SandboxStats>;
  /** SIGTERM, then wait for the exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** Everything the sandbox wrote to stderr so far (its hint, and request lines with --verbose). */
  stderr(): string;
  /** The child process, for signals. */
  child: ChildProcess;
}

const running = new Set<ChildProcess>();

// A failed test must not leave sandboxes behind.
afterAll(async () => {
  await Promise.all([...running].map((child) => stopChild(child)));
});
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function stopChild(child: ChildProcess): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** How {@link startSandboxProcess} starts the sandbox. */
export interface SandboxProcessOptions {
  /** Give up waiting for the URL after this long. Default 15,000 ms. */
  timeoutMs?: number;
  /** The port to listen on (a restart on the port of a sandbox that exited, say). Default 0: a free one. */
  port?: number;
  /**
   * While the port is still in use (the previous sandbox's socket not yet released), try again every 100 ms for
   * this long. Default 0: fail at once.
   */
  retryInUseMs?: number;
}

/**
 * Spawn the built `listings sandbox --port 0 ...args` and wait for the base URL on its first stdout line.
 * Stopped automatically after the test file if the test does not stop it.
 */
export async function startSandboxProcess(args: string[] = [], options: SandboxProcessOptions = {}): Promise<SandboxProcess> {
  const deadline = Date.now() + (options.retryInUseMs ?? 0);
  for (;;) {
    try {
      return await spawnSandbox(args, options);
    } catch (error) {
      const inUse = error instanceof Error && error.message.includes('is already in use');
      if (!inUse || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function spawnSandbox(args: string[], options: SandboxProcessOptions): Promise<SandboxProcess> {
  // A flag is given once (twice with two values is refused): the port of the options only when args name none.
  const child = spawnCli(['sandbox', ...(args.includes('--port') ? [] : ['--port', String(options.port ?? 0)]), ...args]);
  running.add(child);
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      void stopChild(child);
      reject(new Error(`listings sandbox ${args.join(' ')}: ${why}\n--- stderr\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`no URL within ${timeoutMs} ms`), timeoutMs);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => fail(`exited (${signal ?? code}) before printing its URL`);
    // 'close', not 'exit': by then stderr (which says why) has been read to its end.
    child.once('close', onExit);
    child.stdout?.setEncoding('utf8').on('data', function onData(chunk: string) {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      child.off('close', onExit);
      clearTimeout(timer);
      const url = stdout.slice(0, newline).trim();
      resolve({
        url,
        child,
        stop: () => stopChild(child),
        stderr: () => stderr,
        async stats() {
          const response = await fetch(`${url}/_sandbox/stats`);
          if (!response.ok) throw new Error(`GET /_sandbox/stats answered ${response.status}`);
          return (await response.json()) as SandboxStats;
        },
      });
    });
  });
}
