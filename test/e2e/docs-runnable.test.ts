import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, listingsBinDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { fencedBlocks, type Block } from '../helpers/fenced-blocks.js';

/**
 * The docs cannot drift: every fenced block of README.md and docs/*.md that is marked runnable is run, and every
 * TypeScript example is compiled and run.
 *
 * The marker is the fence's info string, after the language (GitHub highlights by the first word only):
 * - ```sh runnable          run with `bash -e` in a fresh temporary directory holding a copy of fixtures/, with
 *                           `listings` (and `npx listings`) on PATH running this repo's bin/listings.js, and HOME and
 *                           LISTINGS_CONFIG_DIR in that directory; offline (`publish --sandbox`, `validate`, `config`);
 * - ```sh runnable sandbox  the same, with LISTINGS_BASE_URL and LISTINGS_API_KEY exported for a `listings sandbox`
 *                           this test started;
 * - ```ts                   compiled with the project's compiler settings, `listings-cli` resolving to the built
 *                           dist/, then run with node in such a directory, with the sandbox's LISTINGS_BASE_URL
 *                           and LISTINGS_API_KEY;
 * - ```ts no-run            compiled only (an example that needs a real service, S3 or the internet).
 * An unmarked ```sh block is shown, not run (installs, S3, the internet, a real service, a second terminal).
 */

const DOCS = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
// `installed`: run by test/e2e/packed-quick-start.test.ts in a directory where the packed tarball was installed.
const FLAGS: Record<string, Set<string>> = { shell: new Set(['runnable', 'sandbox', 'installed']), ts: new Set(['no-run']) };

const blocks = DOCS.flatMap((file) => fencedBlocks(file, readFileSync(join(REPO_ROOT, file), 'utf8')));
const shellRunnable = blocks.filter((block) => block.kind === 'shell' && block.flags.includes('runnable'));
const tsBlocks = blocks.filter((block) => block.kind === 'ts');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr: error && code === null ? `${stderr}\n(${error.message})` : stderr });
    });
  });
}

/** A fresh working directory: a copy of fixtures/ and its own HOME. */
function workspace(): string {
  const dir = tempDir('listings-docs-');
  cpSync(join(REPO_ROOT, 'fixtures'), join(dir, 'fixtures'), { recursive: true });
  mkdirSync(join(dir, 'home'));
  return dir;
}

/** The parent's environment without LISTINGS_*, colour or CI-system variables; HOME and config in `dir`. */
function docsEnv(dir: string, bin: string, service?: SandboxProcess): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('LISTINGS_') || name.startsWith('GITHUB_') || ['FORCE_COLOR', 'NODE_OPTIONS', 'GITLAB_CI'].includes(name)) continue;
    env[name] = value;
  }
  const home = join(dir, 'home');
  Object.assign(env, {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    LISTINGS_CONFIG_DIR: join(home, 'listings-config'),
    NO_COLOR: '1',
    CI: 'true',
    PATH: `${bin}:${process.env.PATH ?? ''}`,
  });
  if (service) {
    env.LISTINGS_BASE_URL = service.url;
    env.LISTINGS_API_KEY = 'sandbox-key';
  }
  return env;
}

/** Set before a shell block: pipelines fail as a whole, the failing command is named, `npx listings` is ours. */
const PREAMBLE = [
  'set -o pipefail',
  `trap 'echo "docs test: this command failed (exit $?): $BASH_COMMAND" >&2' ERR`,
  'npx() { if [ "$1" = listings ]; then shift; listings "$@"; else command npx "$@"; fi; }',
  '',
].join('\n');

function failure(block: Block, what: string, ran: Ran): string {
  return [
    `${block.where}: ${what} (exit ${ran.code ?? 'killed'})`,
    '--- block',
    block.code.trimEnd(),
    '--- stderr',
    ran.stderr.trimEnd(),
    '--- stdout',
    ran.stdout.trimEnd(),
  ].join('\n');
}

let bin = '';
let sandbox: SandboxProcess | undefined;

beforeAll(async () => {
  bin = listingsBinDir();
  sandbox = await startSandboxProcess();
});

describe('fenced blocks in README.md and docs/*.md', () => {
  it('use known markers only', () => {
    const wrong = blocks.flatMap((block) => {
      if (block.kind === 'other') return [];
      const unknown = block.flags.filter((flag) => !FLAGS[block.kind]?.has(flag));
      const problems = unknown.map((flag) => `${block.where}: unknown marker "${flag}"`);
      if (block.flags.includes('sandbox') && !block.flags.includes('runnable')) problems.push(`${block.where}: "sandbox" without "runnable"`);
      return problems;
    });
    expect(wrong).toEqual([]);
    expect(shellRunnable.length).toBeGreaterThanOrEqual(10);
    expect(tsBlocks.length).toBeGreaterThanOrEqual(2);
  });

  it('mark the quick start runnable', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n');
    const start = readme.findIndex((line) => line === '## Quick start');
    const end = readme.findIndex((line, i) => i > start && line.startsWith('## '));
    expect(start).toBeGreaterThan(0);
    const quick = shellRunnable.filter((block) => block.file === 'README.md' && block.line > start && block.line < end);
    expect(quick.map((block) => block.code).join('')).toMatch(/npx listings publish fixtures\/catalog\.csv --sandbox/);
  });
});

describe.concurrent('runnable shell blocks', () => {
  for (const block of shellRunnable) {
    it(`${block.where} (${block.flags.join(' ')})`, async () => {
      const dir = workspace();
      const script = join(dir, 'block.sh');
      writeFileSync(script, PREAMBLE + block.code);
      const ran = await run('bash', ['-e', script], {
        cwd: dir,
        env: docsEnv(dir, bin, block.flags.includes('sandbox') ? sandbox : undefined),
        timeoutMs: 20_000,
      });
      if (ran.code !== 0) expect.fail(failure(block, 'runnable block failed', ran));
    });
  }
});

describe('TypeScript examples', () => {
  let project = '';
  let compiled: Ran | undefined;
  const names = new Map<Block, string>();

  beforeAll(async () => {
    // A project outside the repo that imports the package by its name, as a user's would: node_modules/listings-cli
    // is this repo (its `exports` lead to dist/), @types comes from the repo.
    project = tempDir('listings-docs-ts-');
    mkdirSync(join(project, 'node_modules'));
    mkdirSync(join(project, 'blocks'));
    symlinkSync(REPO_ROOT, join(project, 'node_modules', 'listings-cli'), 'dir');
    symlinkSync(join(REPO_ROOT, 'node_modules', '@types'), join(project, 'node_modules', '@types'), 'dir');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        extends: join(REPO_ROOT, 'tsconfig.json'),
        compilerOptions: { rootDir: '.', outDir: 'out', noEmit: false, declaration: false, sourceMap: false },
        include: ['blocks/*.ts'],
      }),
    );
    for (const block of tsBlocks) {
      const name = `${block.file.replace(/[^A-Za-z0-9]+/g, '_')}_L${block.line}`;
      names.set(block, name);
      writeFileSync(join(project, 'blocks', `${name}.ts`), block.code);
    }
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    compiled = await run(process.execPath, [tsc, '-p', join(project, 'tsconfig.json')], { cwd: project, env: process.env, timeoutMs: 30_000 });
  }, 40_000);

  it('compile with the project settings, against the built package', () => {
    // Point tsc's `blocks/X_L12.ts(3,7)` back at the markdown: README.md:15 (column 7).
    const byName = new Map([...names].map(([block, name]) => [name, block]));
    const output = `${compiled?.stdout ?? ''}${compiled?.stderr ?? ''}`.replace(/blocks\/(\w+)\.ts\((\d+),(\d+)\)/g, (whole, name: string, line: string, column: string) => {
      const block = byName.get(name);
      return block ? `${block.file}:${block.line + Number(line)} (column ${column})` : whole;
    });
    expect(compiled?.code, `tsc failed:\n${output}`).toBe(0);
  });

  describe.concurrent('run against a sandbox', () => {
    for (const block of tsBlocks.filter((candidate) => !candidate.flags.includes('no-run'))) {
      it(block.where, async () => {
        if (compiled?.code !== 0) expect.fail(`${block.where}: not run, the examples did not compile`);
        const dir = workspace();
        const script = join(project, 'out', 'blocks', `${names.get(block) ?? ''}.js`);
        const ran = await run(process.execPath, [script], { cwd: dir, env: docsEnv(dir, bin, sandbox), timeoutMs: 20_000 });
        if (ran.code !== 0) expect.fail(failure(block, `example failed (${relative(project, script)})`, ran));
      });
    }
  });
});
