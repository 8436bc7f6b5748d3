import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, REPO_ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { withTinyDisk } from '../helpers/tiny-disk.js';
import { publishEnv, writeCatalog } from '../helpers/publish.js';

/**
 * Hostile corpus: the files the tool writes. A link planted where it writes, a device, a pipe or a folder where a
 * file is expected, a umask that would share everything, a disk that fills up. Each case runs the built binary.
 */

const root = process.getuid?.() === 0;

/** Run the CLI through `sh -c 'SETUP; exec node listings ...'`: SETUP runs with the pid the CLI will have (`$$`). */
function runUnderShell(setup: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  const child = spawn('sh', ['-c', `${setup}; exec "$0" "$@"`, process.execPath, BIN, ...args], { cwd: options.cwd, env: cliEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('hostile files: a link planted at the temporary name is never followed', () => {
  // Before: reports and states were written through `<path>.tmp-<pid>`, opened without O_EXCL: the planted link's
  // target was overwritten with the report (and the link renamed into place).
  const cases: [string, (dir: string) => string[], string][] = [
    ['publish --report', (dir) => ['--report', join(dir, 'out.csv')], 'out.csv'],
    ['publish --report (HTML)', (dir) => ['--report', join(dir, 'out.html')], 'out.html'],
    ['publish --changed-only --state', (dir) => ['--changed-only', '--state', join(dir, 'state.ndjson')], 'state.ndjson'],
  ];
  it.each(cases)('%s: the victim is untouched, the output is a regular file', async (_name, args, name) => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 20);
    writeFileSync(join(dir, 'victim.txt'), 'secret');
    const result = await runUnderShell(`ln -s victim.txt "${name}.tmp-$$"`, ['publish', catalog, ...args(dir)], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(dir, 'victim.txt'), 'utf8')).toBe('secret');
    expect(lstatSync(join(dir, name)).isFile()).toBe(true);
    // The planted link is left alone, and no temporary file of the run is left beside the output.
    expect(readdirSync(dir).filter((entry) => entry.startsWith(`${name}.tmp-`))).toHaveLength(1);
  });
});

describe('hostile files: what is at the output path', () => {
  it('a report on a named pipe is written into it (the test reads it) and the pipe stays a pipe', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 20);
    const pipe = join(dir, 'pipe.csv');
    expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    const run = runCli(['publish', catalog, '--report', pipe], { cwd: dir, env: publishEnv(sandbox.url) });
    const text = await readFile(pipe, 'utf8');
    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    expect(text.split('\n').filter((line) => line.includes(',published,'))).toHaveLength(20);
    expect(statSync(pipe).isFIFO()).toBe(true);
  });

  // Before: opened as a file, a pipe no program reads waited for ever in a thread of the pool (the journal's
  // read-write open did not, but its writes would once the pipe was full), and not even SIGTERM ended the run.
  it('a report, a journal and a --out file on a named pipe that no program reads: exit 2 within the 10 s wait, named, nothing sent', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 20);
    const cases: [string[], RegExp][] = [
      [['publish', catalog, '--report', join(dir, 'r.csv')], /cannot write .*r\.csv: it is a named pipe that no program opened to read within 10 s/],
      [['publish', catalog, '--journal', join(dir, 'j.ndjson')], /cannot write the journal .*j\.ndjson: it is a named pipe that no program opened to read within 10 s/],
      [['validate', catalog, '--out', join(dir, 'out.ndjson')], /cannot write the --out file .*out\.ndjson: it is a named pipe that no program opened to read within 10 s/],
    ];
    for (const name of ['r.csv', 'j.ndjson', 'out.ndjson']) expect(spawnSync('mkfifo', [join(dir, name)]).status).toBe(0);
    const started = performance.now();
    const results = await Promise.all(cases.map(([args]) => runCli(args, { cwd: dir, env: publishEnv(sandbox.url) })));
    expect(performance.now() - started).toBeLessThan(60_000);
    results.forEach((result, i) => {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(cases[i]![1]);
      expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    });
    expect((await sandbox.stats()).requests).toBe(0);
  });

  it('a journal on a named pipe that a program reads is written into it, a line a row', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 20);
    const pipe = join(dir, 'journal.ndjson');
    expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    const run = runCli(['publish', catalog, '--journal', pipe], { cwd: dir, env: publishEnv(sandbox.url) });
    const text = await readFile(pipe, 'utf8');
    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    expect(text.split('\n').filter((line) => line.includes('"outcome":"published"'))).toHaveLength(20);
  });

  it.skipIf(!root)('a state and a report on a character device (a null device made here) are written to, never replaced', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 20);
    const device = join(dir, 'null');
    expect(spawnSync('mknod', [device, 'c', '1', '3']).status).toBe(0);
    symlinkSync(device, join(dir, 'r.csv'));
    const result = await runCli(['publish', catalog, '--changed-only', '--state', device, '--report', join(dir, 'r.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    expect(statSync(device).isCharacterDevice()).toBe(true);
    expect(lstatSync(join(dir, 'r.csv')).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['.listings', 'catalog.csv', 'null', 'r.csv']);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  const refused: [string, (dir: string, catalog: string) => string[], RegExp][] = [
    ['a state file on a named pipe (it is read back)', (dir) => (spawnSync('mkfifo', [join(dir, 'st')]), ['publish', '--changed-only', '--state', join(dir, 'st')]), /cannot write the state file .*st: it is a named pipe, and this file is read back or rewritten/],
    ['a JUnit report on a named pipe (its counts are rewritten)', (dir) => (spawnSync('mkfifo', [join(dir, 'r.xml')]), ['publish', '--report', join(dir, 'r.xml')]), /cannot write the report .*r\.xml: it is a named pipe/],
    ['a state file that is a directory', (dir) => (mkdirSync(join(dir, 'st')), ['publish', '--changed-only', '--state', join(dir, 'st')]), /cannot write the state file .*st: it is a directory/],
    ['a journal that is a directory', (dir) => (mkdirSync(join(dir, 'j')), ['publish', '--journal', join(dir, 'j')]), /cannot write the journal .*j: it is a directory/],
    ['a report that is a link to nowhere', (dir) => (symlinkSync(join(dir, 'gone', 'x.csv'), join(dir, 'r.csv')), ['publish', '--report', join(dir, 'r.csv')]), /cannot write the report .*r\.csv: it is a symbolic link to a file that does not exist/],
    ['validate --out that is a directory', (dir) => (mkdirSync(join(dir, 'out')), ['validate', '--out', join(dir, 'out')]), /cannot write the --out file .*out: it is a directory/],
  ];
  it.each(refused)('%s: exit 2 before anything is sent, named', async (_name, args, message) => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 20);
    const [command, ...rest] = args(dir, catalog);
    const result = await runCli([command!, catalog, ...rest], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    expect((await sandbox.stats()).requests).toBe(0);
  });

  // Before: `<name>.tmp-<hex>` and `<name>.lock.<pid>-<hex>.tmp` passed the 255-byte limit of a file name: exit 70
  // and a stack trace for a name the file system takes; a name it does not take was read as "missing", then crashed.
  it('names at the limit of the file system: a report, a journal and a state of 251 bytes are written; 256 is refused (exit 2)', async () => {
    const dir = tempDir();
    const catalog = writeCatalog(dir, 3);
    const long = (ending: string, bytes = 251): string => `${'n'.repeat(bytes - ending.length)}${ending}`;
    const written = await runCli(['publish', catalog, '--sandbox', '--report', long('.csv'), '--journal', long('.j'), '--changed-only', '--state', long('.s')], { cwd: dir });
    expect(written.code, written.stderr).toBe(0);
    expect(readdirSync(dir).filter((name) => name.startsWith('n')).sort()).toEqual([long('.csv'), long('.j'), long('.s')]);
    const refused = await runCli(['publish', catalog, '--sandbox', '--report', long('.csv', 256)], { cwd: dir });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`cannot write the report ${long('.csv', 256)}: its name is longer than the file system allows (ENAMETOOLONG)`);
  });

  it.skipIf(!root)('a link owned by another user at the report path is not followed: exit 2, its target untouched', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 20);
    writeFileSync(join(dir, 'victim.csv'), 'secret');
    symlinkSync(join(dir, 'victim.csv'), join(dir, 'r.csv'));
    spawnSync('chown', ['-h', '65534', join(dir, 'r.csv')]);
    const result = await runCli(['publish', catalog, '--report', join(dir, 'r.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/cannot write the report .*r\.csv: it is a symbolic link owned by another user \(uid 65534\), which is not followed/);
    expect(readFileSync(join(dir, 'victim.csv'), 'utf8')).toBe('secret');
    expect((await sandbox.stats()).requests).toBe(0);
  });
});

describe('hostile files: a planted folder link', () => {
  it.skipIf(!root)('a folder link owned by another user on the way to the report is not followed: exit 2, nothing written there', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'chosen'));
    // A shared folder as /tmp is: anyone may write to it (sticky).
    const shared = join(dir, 'shared');
    mkdirSync(shared, { mode: 0o1777 });
    chmodSync(shared, 0o1777);
    symlinkSync(join(dir, 'chosen'), join(shared, 'reports'));
    spawnSync('chown', ['-h', '65534', join(shared, 'reports')]);
    const result = await runCli(['validate', join(REPO_ROOT, 'fixtures', 'catalog.csv'), '--report', join(shared, 'reports', 'r.csv')], { cwd: dir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`its folder ${join(shared, 'reports')} is a symbolic link owned by another user (uid 65534) in a folder anyone may write to, which is not followed`);
    expect(readdirSync(join(dir, 'chosen'))).toEqual([]);
  });
});

describe('hostile files: umask 000', () => {
  it('config, .listings/, journal and state are the user\'s alone (0700, 0600); reports and their folders are not writable by others', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 20);
    const config = join(dir, 'home', 'config', 'listings');
    const env = { ...publishEnv(sandbox.url), LISTINGS_CONFIG_DIR: config };
    const set = await runUnderShell('umask 000', ['config', 'set', 'concurrency', '4'], { cwd: dir, env });
    expect(set.code, set.stderr).toBe(0);
    const run = await runUnderShell('umask 000', ['publish', catalog, '--changed-only', '--report', join(dir, 'out', 'r.csv')], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect([mode(join(dir, 'home')), mode(join(dir, 'home', 'config')), mode(config), mode(join(config, 'config.json'))]).toEqual([0o700, 0o700, 0o700, 0o600]);
    const listings = join(dir, '.listings');
    expect(mode(listings)).toBe(0o700);
    const files = readdirSync(listings);
    expect(files.filter((name) => /^(journal|state)-.*\.ndjson$/.test(name))).toHaveLength(2);
    for (const name of files) expect([name, mode(join(listings, name))]).toEqual([name, 0o600]);
    expect([mode(join(dir, 'out')), mode(join(dir, 'out', 'r.csv'))]).toEqual([0o775, 0o664]);
  });
});

const devFull = existsSync('/dev/full') && statSync('/dev/full').isCharacterDevice();

describe('hostile files: a full disk', () => {
  it.skipIf(!devFull)('a state that cannot be written stops the run before anything is sent: exit 74, told as disk_full in the JSON log', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 200);
    const result = await runCli(['publish', catalog, '--changed-only', '--state', '/dev/full', '--log-format', 'json'], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(74);
    expect((await sandbox.stats()).requests).toBe(0);
    const events = result.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.find((event) => event.event === 'run_stopped')).toMatchObject({ kind: 'output_failed', reason: 'disk_full', output: 'state file', path: '/dev/full' });
    expect(events.find((event) => event.event === 'summary')).toMatchObject({ end: { kind: 'output_failed', reason: 'disk_full' } });
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
  });

  it('a state on a disk that fills up mid-run stops the sending then: exit 74, the rest not attempted, no cut state left', async (context) => {
    const dir = tempDir();
    await withTinyDisk(dir, context, async (tiny) => {
      const sandbox = await startSandboxProcess(['--latency', '2-5']);
      const catalog = writeCatalog(dir, 400);
      const result = await runCli(['publish', catalog, '--changed-only', '--state', join(tiny, 's.ndjson'), '--concurrency', '8', '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(result.code, result.stderr).toBe(74);
      expect(result.stderr).toMatch(/error cannot write the state file .*tiny\/s\.ndjson: ENOSPC.*; sending stopped/);
      const summary = JSON.parse(result.stdout) as { published: number; complete: boolean };
      expect(summary.complete).toBe(false);
      expect((await sandbox.stats()).created).toBe(summary.published);
      expect(summary.published).toBeLessThan(400);
      expect(readdirSync(tiny)).toEqual([]);
    });
  });

  it('a report that cannot be written is not listed as written, and the message does not say sending stopped after every row was sent', async (context) => {
    const dir = tempDir();
    await withTinyDisk(dir, context, async (tiny) => {
      const sandbox = await startSandboxProcess([]);
      const catalog = writeCatalog(dir, 400);
      const report = join(tiny, 'r.csv');
      const result = await runCli(['publish', catalog, '--report', report, '--report', join(dir, 'ok.csv'), '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(result.code, result.stderr).toBe(74);
      expect(JSON.parse(result.stdout)).toMatchObject({ published: 400, report: [join(dir, 'ok.csv')] });
      expect(result.stderr).toMatch(/error cannot write the report .*tiny\/r\.csv: ENOSPC.*; it failed as the run closed, after the rows were sent/);
      expect(result.stderr).not.toMatch(/sending stopped/);
      const human = await runCli(['publish', catalog, '--report', report], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(human.code, human.stderr).toBe(74);
      expect(human.stderr).not.toMatch(/report: .*tiny\/r\.csv/);
    });
  });

  it('publish --help lists exit 74', async () => {
    const result = await runCli(['publish', '--help']);
    expect(result.stdout.replace(/\s+/g, ' ')).toMatch(/74 an output \(report, journal, state\) could not be written, 130 interrupted/);
  });
});
