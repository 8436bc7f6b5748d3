import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tempDir } from './tmp.js';

/** The project root, where `bin/listings.js` lives. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built binary; `npm run build` must have run. */
export const BIN = join(REPO_ROOT, 'bin', 'listings.js');

export interface CliOptions {
  /** Added to (or, with `undefined`, removed from) the clean environment. */
  env?: Record<string, string | undefined>;
  /** Working directory. Default: the project root. */
  cwd?: string;
  /** Written to stdin, which is then closed (stdin is always closed, so nothing waits on it). */
  input?: string;
  /** Kill the process and fail after this long. Default 30,000 ms. */
  timeoutMs?: number;
  /** Run the full CLI (dist/bundle/main.js), past what bin/listings.js answers itself (a help from dist/help.json). */
  full?: boolean;
}

/** `node -e` of the full CLI: what bin/listings.js runs when it does not answer itself. */
const FULL_CLI = `const { run } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', 'bundle', 'main.js')).href)});
await run([process.argv[0], 'listings', ...process.argv.slice(1)]);`;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a spawned CLI: the parent's, without any LISTINGS_* variable, colour or real home config.
 * LISTINGS_CONFIG_DIR is a fresh temporary directory for each spawn unless the caller gives one, so pass it
 * explicitly when several runs must share a config.
 */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('LISTINGS_') && name !== 'FORCE_COLOR' && name !== 'NODE_OPTIONS') env[name] = value;
  }
  const home = tempDir('listings-home-');
  env.HOME = home;
  env.USERPROFILE = home;
  env.XDG_CONFIG_HOME = join(home, '.config');
  env.LISTINGS_CONFIG_DIR = join(home, 'listings-config');
  env.NO_COLOR = '1';
  env.CI = 'true';
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Start `node bin/listings.js ...args` with the clean environment, for tests that signal or stream it. */
export function spawnCli(args: string[], options: Omit<CliOptions, 'timeoutMs'> = {}): ChildProcess {
  const entry = options.full === true ? ['--input-type=module', '-e', FULL_CLI, '--'] : [BIN];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: cliEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin?.on('error', () => {
    // the CLI may exit before reading its input
  });
  child.stdin?.end(options.input ?? '');
  return child;
}

/** Run the built CLI to completion and collect its exit code and output. Rejects only on timeout. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const child = spawnCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`listings ${args.join(' ')} did not finish within ${timeoutMs} ms\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A bin directory with a `listings` that runs this repo's built binary, for shell scripts that call `listings`. */
export function listingsBinDir(): string {
  const dir = tempDir('listings-bin-');
  const wrapper = join(dir, 'listings');
  writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return dir;
}
