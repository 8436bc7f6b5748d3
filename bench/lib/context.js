/** What every section needs: paths, options, the runner of the listings binary, and progress lines on stderr. */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './proc.js';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = resolve(BENCH_DIR, '..');
/** The `listings` binary measured; {@link useSnapshot} points it at a private copy of the build. */
export let BIN = join(ROOT, 'bin', 'listings.js');
export const NODE = process.execPath;
/** The key the benchmark sends; not a secret (the responder accepts anything, the sandbox is told this one). */
export const BENCH_KEY = 'bench-key';

export function log(line) {
  process.stderr.write(`${line}\n`);
}

const scratchDirs = new Set();
process.once('exit', () => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, removed by the returned function (or when the benchmark exits). */
export function scratch(prefix = 'listings-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.add(dir);
  return {
    dir,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      scratchDirs.delete(dir);
    },
  };
}

/**
 * The environment of a measured `listings` run: a fresh, empty config home, no colour, not interactive, the
 * benchmark's key. Nothing of the user's own profile can leak into the figures.
 */
export function listingsEnv(home, apiKey = BENCH_KEY) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('LISTINGS_') && name !== 'NODE_OPTIONS' && name !== 'FORCE_COLOR') env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    LISTINGS_CONFIG_DIR: join(home, 'listings-config'),
    LISTINGS_API_KEY: apiKey,
    NO_COLOR: '1',
    CI: 'true',
  };
}

/**
 * Runs `node bin/listings.js ...args` in a fresh working directory (so journals and reports of one run never
 * meet the next), measured. `args` may be a function of that directory.
 */
export async function runListings(args, { apiKey, nodeArgs = [] } = {}) {
  const work = scratch();
  try {
    const argv = typeof args === 'function' ? args(work.dir) : args;
    const result = await measure(NODE, [...nodeArgs, BIN, ...argv], { cwd: work.dir, env: listingsEnv(work.dir, apiKey) });
    return { ...result, args: argv };
  } finally {
    work.remove();
  }
}

/** The machine the figures belong to. */
export function machine() {
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryMb: Math.round(totalmem() / 2 ** 20),
    freeMemoryMb: Math.round(freemem() / 2 ** 20),
    loadAverage: loadavg().map((v) => Math.round(v * 100) / 100),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
    commit: git.status === 0 ? git.stdout.trim() : undefined,
    builtBinary: existsSync(join(ROOT, 'dist', 'cli', 'main.js')),
  };
}

/** A command's failure as a short, single-line reason. */
export function failure(what, result) {
  const text = `${result.stderr}\n${result.stdout}`.trim().split('\n').slice(-3).join(' | ');
  return new Error(`${what} exited with ${result.signal ?? result.code}: ${text.slice(0, 400)}`);
}

/**
 * Copies the built tool (bin/, dist/, package.json; node_modules linked) to bench/tmp/snapshot and measures that
 * copy, so that a rebuild in the working tree during a long run cannot change the program halfway through.
 */
export function useSnapshot() {
  const dir = join(BENCH_DIR, 'tmp', 'snapshot');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const name of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  BIN = join(dir, 'bin', 'listings.js');
  return dir;
}
