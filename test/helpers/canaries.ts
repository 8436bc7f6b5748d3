import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ExpectStatic } from 'vitest';
import { runCli, type CliResult } from './cli.js';
import { tempDir } from './tmp.js';
import { filesBelow } from './publish.js';

/**
 * Canary secrets, for "this secret is shown nowhere" tests: a working directory whose runs are all kept, then every
 * stdout, stderr and file below it searched for each canary.
 */

/** A working directory with its own config directory inside it, so that one scan covers both. */
export interface Workspace {
  dir: string;
  configDir: string;
  env: Record<string, string>;
  results: CliResult[];
  run(args: string[], env?: Record<string, string>): Promise<CliResult>;
}

export function workspace(env: Record<string, string> = {}): Workspace {
  const dir = tempDir('listings-canary-');
  const configDir = join(dir, 'config');
  const ws: Workspace = {
    dir,
    configDir,
    env: { LISTINGS_CONFIG_DIR: configDir, ...env },
    results: [],
    async run(args, extra = {}) {
      const result = await runCli(args, { cwd: dir, env: { ...ws.env, ...extra }, timeoutMs: 20_000 });
      ws.results.push(result);
      return result;
    },
  };
  return ws;
}

export interface CanaryScan {
  /** The secret stored on purpose in the config file: that file is not searched, and must hold it and be 0600. */
  keyStored?: string;
  /** Files (relative to the workspace) not searched. */
  skip?: RegExp;
}

/** No canary on any stdout or stderr of the workspace's runs, nor in any file below it; and no crash. */
export function expectNoCanary(expect: ExpectStatic, ws: Workspace, canaries: readonly string[], options: CanaryScan = {}): void {
  const configFile = join(ws.configDir, 'config.json');
  const texts: [string, string][] = ws.results.flatMap((result, i): [string, string][] => [
    [`run ${i} stdout`, result.stdout],
    [`run ${i} stderr`, result.stderr],
  ]);
  for (const path of filesBelow(ws.dir)) {
    if (options.keyStored !== undefined && path === configFile) continue;
    if (options.skip?.test(relative(ws.dir, path)) === true) continue;
    texts.push([relative(ws.dir, path), readFileSync(path, 'latin1')]);
  }
  for (const [name, text] of texts) {
    for (const canary of canaries) expect(text.includes(canary), `${name} shows ${canary}:\n${text.slice(0, 3000)}`).toBe(false);
    expect(text, `${name}: no crash`).not.toMatch(/internal error/);
  }
  if (options.keyStored !== undefined) {
    expect(readFileSync(configFile, 'utf8')).toContain(options.keyStored);
    expect(statSync(configFile).mode & 0o777, 'the config file holding the key is 0600').toBe(0o600);
  }
}

/** The five report formats, by their file names. */
export const REPORTS = ['report.csv', 'report.json', 'report.ndjson', 'report.xml', 'report.html'];

/** Reports in every format, and --changed-only, so that a state file is written beside the journal. */
export function publishArgs(ws: Workspace, catalog: string, extra: string[] = []): string[] {
  return ['publish', catalog, '--json', '--changed-only', ...REPORTS.flatMap((name) => ['--report', join(ws.dir, name)]), ...extra];
}
