import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { BIN, REPO_ROOT, cliEnv, runCli, type CliOptions, type CliResult } from '../helpers/cli.js';
import { buildProgram } from '../../src/cli/main.js';
import { commandPath } from '../../src/cli/help.js';
import { tempDir } from '../helpers/tmp.js';

/** Every command's path, '' for the program. */
function pathsOf(command: Command): string[] {
  return [commandPath(command), ...command.commands.flatMap(pathsOf)];
}
const PATHS = pathsOf(await buildProgram());

const TTY = `--import=${pathToFileURL(join(REPO_ROOT, 'test/helpers/tty-width.js')).href}`;
const TRACE = `--import=${pathToFileURL(join(REPO_ROOT, 'bench/lib/trace-loads.js')).href}`;

/** `listings ...args` with stdout a pipe (columns: undefined) or a terminal of that many columns. */
function run(args: string[], columns: number | undefined, options: CliOptions = {}): Promise<CliResult> {
  return runCli(args, columns === undefined ? options : { ...options, env: { ...options.env, TTY_COLUMNS: String(columns), NODE_OPTIONS: TTY } });
}

/** The same argv through bin/listings.js and through the full CLI: both outputs and exit codes. */
async function bothWays(args: string[], columns?: number): Promise<{ fast: CliResult; full: CliResult }> {
  const [fast, full] = await Promise.all([run(args, columns), run(args, columns, { full: true })]);
  return { fast, full };
}

/** At most `limit` of the jobs at once (the machine is small). */
async function inTurn<T>(jobs: (() => Promise<T>)[], limit = 3): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < jobs.length; index = next++) results[index] = await (jobs[index] as () => Promise<T>)();
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe('help printed by bin/listings.js from dist/help.json', () => {
  it('has the model of every command of the program, nothing else', () => {
    const models = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'help.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(models).sort()).toEqual([...PATHS].sort());
  });

  it('is byte for byte what the full CLI prints, for every command, to a pipe and to terminals of several widths', async () => {
    const cases = PATHS.flatMap((path) => [undefined, 60].map((columns) => ({ path, columns })));
    // Where commander stops wrapping the items (under 40 columns beside publish's terms), where it wraps nothing, wider.
    for (const columns of [0, 20, 74, 75, 78, 200]) cases.push({ path: 'publish', columns }, { path: '', columns });
    const results = await inTurn(cases.map(({ path, columns }) => () => bothWays([...path.split(' ').filter(Boolean), '--help'], columns)));
    cases.forEach(({ path, columns }, index) => {
      const { fast, full } = results[index] as { fast: CliResult; full: CliResult };
      const name = `listings ${path} --help, ${columns ?? 'no'} columns`;
      expect(full.code, `${name}: ${full.stderr}`).toBe(0);
      expect(fast.stdout, name).toBe(full.stdout);
      expect([fast.code, fast.stderr], name).toEqual([0, '']);
    });
    expect(results[0]?.fast.stdout).toMatch(/^Usage: listings \[options\] \[command\]\n[\s\S]*\nExamples:\n[\s\S]*\n\n$/);
  });

  it('answers -h, help and help CMD as the full CLI does', async () => {
    for (const args of [['-h'], ['help'], ['help', 'publish'], ['help', 'config'], ['config', 'set', '-h'], ['validate', '-h']]) {
      const { fast, full } = await bothWays(args, 100);
      expect(full.code, args.join(' ')).toBe(0);
      expect(fast.stdout, args.join(' ')).toBe(full.stdout);
    }
  });

  it('loads neither commander nor any of the CLI: the renderer alone', async () => {
    const traced = join(tempDir(), 'traced.txt');
    const result = await runCli(['publish', '--help'], { env: { BENCH_LOADS_FILE: traced, NODE_OPTIONS: TRACE } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: listings publish \[options\] <source\.\.\.>\n/);
    const loaded = readFileSync(traced, 'utf8').split('\n').filter((module) => module.startsWith('file:'));
    expect(loaded).toEqual([pathToFileURL(BIN).href, pathToFileURL(join(REPO_ROOT, 'dist', 'options', 'help', 'render.js')).href]);
  });

  it('leaves to the full CLI what is not a help alone, or a command it does not know', async () => {
    for (const args of [['publish', '--quiet', '--help'], ['help', 'config', 'set'], ['nosuch', '--help'], ['constructor', '--help'], ['help', '__proto__']]) {
      const { fast, full } = await bothWays(args);
      expect([fast.code, fast.stdout, fast.stderr], args.join(' ')).toEqual([full.code, full.stdout, full.stderr]);
    }
  });

  it('falls back to the full CLI when dist/help.json is missing or damaged, and never crashes', async () => {
    // A copy of the package whose dist/ is the real one but for help.json.
    const root = tempDir('listings-nohelp-');
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'dist'));
    cpSync(BIN, join(root, 'bin', 'listings.js'));
    cpSync(join(REPO_ROOT, 'package.json'), join(root, 'package.json'));
    for (const name of readdirSync(join(REPO_ROOT, 'dist')).filter((entry) => entry !== 'help.json')) symlinkSync(join(REPO_ROOT, 'dist', name), join(root, 'dist', name));
    const expected = (await runCli(['publish', '--help'], { full: true })).stdout;
    for (const damaged of [undefined, '{"publish": nul', '{"publish": null}', '{"publish": {"usage": "x"}}', '[]']) {
      if (damaged !== undefined) writeFileSync(join(root, 'dist', 'help.json'), damaged);
      const result = spawnSync(process.execPath, [join(root, 'bin', 'listings.js'), 'publish', '--help'], { cwd: root, env: cliEnv(), encoding: 'utf8' });
      expect([result.status, result.stderr, result.stdout === expected], String(damaged)).toEqual([0, '', true]);
    }
  });
});
