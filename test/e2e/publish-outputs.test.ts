import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { withTinyDisk } from '../helpers/tiny-disk.js';
import { publishEnv, writeCatalog } from '../helpers/publish.js';

/**
 * Every output of a run (reports, journal, state) is checked before the first request: a path that cannot be
 * written is exit 2 with a message naming it, and the service receives nothing.
 */
describe.concurrent('listings publish: outputs are checked before anything is sent', () => {
  const cases: [string, (dir: string, catalog: string) => string[], RegExp][] = [
    ['a report that is a directory', (dir) => (mkdirSync(join(dir, 'out.csv')), ['--report', join(dir, 'out.csv')]), /cannot write the report .*out\.csv: it is a directory/],
    ['the same report twice', (dir) => ['--report', join(dir, 'r.csv'), '--report', join(dir, '.', 'r.csv')], /the report .*r\.csv is named twice/],
    // Two spellings of one file: the later would replace the earlier at the end of the run.
    ['a report and a link to it', (dir) => (writeFileSync(join(dir, 'x.csv'), 'old\n'), symlinkSync(join(dir, 'x.csv'), join(dir, 'link.csv')), ['--report', join(dir, 'x.csv'), '--report', join(dir, 'link.csv')]), /the report .*x\.csv and the report .*link\.csv are the same file/],
    ['a report and a hard link to it', (dir) => (writeFileSync(join(dir, 'x.csv'), 'old\n'), linkSync(join(dir, 'x.csv'), join(dir, 'hard.csv')), ['--report', join(dir, 'x.csv'), '--report', join(dir, 'hard.csv')]), /are the same file/],
    ['a new report through a linked directory', (dir) => (mkdirSync(join(dir, 'out')), symlinkSync(join(dir, 'out'), join(dir, 'alias')), ['--report', join(dir, 'out', 'r.csv'), '--journal', join(dir, 'alias', 'r.csv')]), /the report .*out\/r\.csv and the journal .*alias\/r\.csv are the same file/],
    ['a report on the journal', (dir) => ['--report', join(dir, 'j.ndjson'), '--journal', join(dir, 'j.ndjson')], /the report and the journal are the same file/],
    ['a journal under a file', (_dir, catalog) => ['--journal', join(catalog, 'j.ndjson')], /cannot write the journal .*: .*catalog\.csv is not a directory/],
    ['a state file under a file', (_dir, catalog) => ['--changed-only', '--state', join(catalog, 's.ndjson')], /cannot write the state file .*: .*catalog\.csv is not a directory/],
    ['a report under a file', (_dir, catalog) => ['--report', join(catalog, 'r.csv')], /cannot write the report .*: .*catalog\.csv is not a directory/],
    // A directory that cannot be made (a recursive mkdir under /proc never returns: the check makes one level at a time).
    ['a journal where no directory can be made', () => ['--journal', '/proc/listings-no-such-dir/j.ndjson'], /cannot write the journal .*: cannot create the directory \/proc\/listings-no-such-dir/],
  ];
  it.each(cases)('%s: exit 2, named, nothing sent', async (_name, args, message) => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 30);
    const result = await runCli(['publish', catalog, ...args(dir, catalog)], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    expect((await sandbox.stats()).requests).toBe(0);
  });

  it('a report in a directory that does not exist yet is fine: it is created', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 30);
    const result = await runCli(['publish', catalog, '--report', join(dir, 'new', 'deeper', 'r.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    expect((await sandbox.stats()).created).toBe(30);
  });
});

/** A real full disk: /dev/full answers every write with ENOSPC (and a tiny tmpfs, see withTinyDisk). */
const devFull = existsSync('/dev/full') && statSync('/dev/full').isCharacterDevice();

describe('listings publish: an output that fails mid-run (disk full)', () => {
  it.skipIf(!devFull)(devFull ? 'a journal that cannot be written stops the sending: exit 74, named, what was sent is resumed without duplicates' : 'journal on a full disk (skipped: no /dev/full)', async () => {
    const sandbox = await startSandboxProcess(['--latency', '5-10']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 300);
    const first = await runCli(['publish', catalog, '--concurrency', '4', '--journal', '/dev/full', '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(first.code, first.stderr).toBe(74);
    expect(first.stderr).toMatch(/error cannot write the journal \/dev\/full: ENOSPC: no space left on device.*; sending stopped/);
    expect(first.stderr).not.toMatch(/internal error|\n\s+at /);
    // The device is written to, never removed or replaced by a file.
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
    const sent = await sandbox.stats();
    expect(sent.created).toBeLessThan(300);
    expect(JSON.parse(first.stdout)).toMatchObject({ published: sent.created, complete: false });
    const second = await runCli(['publish', catalog, '--resume'], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(second.code, second.stderr).toBe(0);
    expect(await sandbox.stats()).toMatchObject({ created: 300, duplicates: 0 });
  });

  it('a report on a disk that fills up: exit 74, the report dropped (never a cut file), the journal lets --resume finish', async (context) => {
    const dir = tempDir();
    await withTinyDisk(dir, context, async (tiny) => {
      const sandbox = await startSandboxProcess(['--latency', '2-5']);
      const catalog = writeCatalog(dir, 400);
      const first = await runCli(['publish', catalog, '--report', join(tiny, 'r.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(first.code, first.stderr).toBe(74);
      expect(first.stderr).toMatch(/error cannot write the report .*tiny\/r\.csv: ENOSPC.*; it failed as the run closed, after the rows were sent/);
      expect(first.stderr).toMatch(/the journal .*\.listings\/journal-.*\.ndjson has every row sent/);
      expect(readdirSync(tiny)).toEqual([]);
      const second = await runCli(['publish', catalog, '--resume', '--report', join(dir, 'r.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(second.code, second.stderr).toBe(0);
      expect(await sandbox.stats()).toMatchObject({ created: 400, duplicates: 0 });
    });
  });
});

/**
 * Several sources, one of which stops the run: the sources after it are never opened, and the summary, the report's
 * not_read lines and the stop line name each one not read (a CI job sees which files to send again); the total is not
 * made up for files never read.
 */
describe.concurrent('listings publish: several sources, one stops the run', () => {
  const policies = { LISTINGS_MARKETPLACE: 'EBAY_US', LISTINGS_MERCHANT_LOCATION_KEY: 'loc', LISTINGS_FULFILLMENT_POLICY_ID: 'fp', LISTINGS_PAYMENT_POLICY_ID: 'pp', LISTINGS_RETURN_POLICY_ID: 'rp' };
  const notOpened = 'mc.csv,,,not_read,the run stopped before this source was opened: none of its rows was read (--retry-failed of this report sends them),,,,0,0,,';

  it.each([
    ['an unclosed quote in the middle source', 'mb.csv', 'sku,overrides.n\nM3,"open\nM4,x\n', 3, { reason: 'unclosed_quote', bytes: 14, rows_estimate: 1 }, 'about 1 row (14 bytes) not read: a quoted value was never closed (mb.csv); not opened: mc.csv'],
    ['an empty middle source', 'emp.csv', '', 2, { reason: 'source_error', bytes: null, rows_estimate: null }, 'emp.csv not read: the source could not be read; not opened: mc.csv'],
  ])('%s: exit 4; it and the source after it are named as not read', async (_name, middle, text, rows, account, told) => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    writeFileSync(join(dir, 'ma.csv'), 'sku\nM1\nM2\n');
    writeFileSync(join(dir, middle), text);
    writeFileSync(join(dir, 'mc.csv'), 'sku\nM5\nM6\n');
    const result = await runCli(['publish', 'ma.csv', middle, 'mc.csv', '--report', 'r.csv', '--json'], { cwd: dir, env: { ...publishEnv(sandbox.url), ...policies } });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).toContain(`and ${told}\n`);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ rows, complete: false, total: null, unread: { ...account, sources_not_read: [middle, 'mc.csv'] } });
    const lines = readFileSync(join(dir, 'r.csv'), 'utf8').trim().split('\n');
    expect(lines.filter((line) => line.includes(',not_read,'))).toEqual([
      `${middle},,,not_read,the run stopped in this source: its rows after the last line listed for it were not read (--retry-failed of this report sends them); ${told},,,,0,0,,`,
      notOpened,
    ]);
    expect((await sandbox.stats()).created).toBe(2);
  });

  it('a file named twice (as itself, by another path, through a link or a hard link), or stdin twice, is refused before anything is sent: its rows would each be a duplicate of itself, or none', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    writeFileSync(join(dir, 'ma.csv'), 'sku\nM1\nM2\n');
    writeFileSync(join(dir, 'mb.csv'), 'sku\nM3\n');
    symlinkSync(join(dir, 'ma.csv'), join(dir, 'link.csv'));
    // A hard link has a realpath of its own: it is the same file by its device and inode, as for the outputs.
    linkSync(join(dir, 'ma.csv'), join(dir, 'hard.csv'));
    for (const [sources, told] of [
      [['ma.csv', 'mb.csv', 'ma.csv'], 'error ma.csv is given twice: its rows would be read twice'],
      [['ma.csv', './ma.csv'], 'error ./ma.csv is given twice (as ma.csv and as ./ma.csv)'],
      [['ma.csv', 'mb.csv', 'link.csv'], 'error link.csv is given twice (as ma.csv and as link.csv)'],
      [['hard.csv', 'mb.csv', 'ma.csv'], 'error ma.csv is given twice (as hard.csv and as ma.csv)'],
    ] as const) {
      const result = await runCli(['publish', ...sources, '--report', 'r.csv'], { cwd: dir, env: { ...publishEnv(sandbox.url), ...policies } });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(told);
      const validated = await runCli(['validate', ...sources], { cwd: dir, env: policies });
      expect(validated.code, validated.stderr).toBe(2);
      expect(validated.stderr).toContain(told);
    }
    const stdin = await runCli(['publish', '-', 'mb.csv', '-', '--format', 'csv', '--report', 'r.csv'], { cwd: dir, env: { ...publishEnv(sandbox.url), ...policies }, input: 'sku\nS1\n' });
    expect(stdin.code, stdin.stderr).toBe(2);
    expect(stdin.stderr).toContain('error - (stdin) is given twice: its bytes can be read once');
    expect((await sandbox.stats()).requests).toBe(0);
    expect(existsSync(join(dir, 'r.csv'))).toBe(false);
    await sandbox.stop();
  });

  it.each([
    ['a later file that is missing', 'sku\nM1\nM2\n', ['ma.csv', 'mb.csv', 'mc.csv'], 4, 'error mc.csv: no such file'],
    ['a later file without the mapped column', 'Item\nM1\nM2\n', ['ma.csv', 'mb.csv', '--map', 'sku=Item'], 2, 'error --map sku=Item: mb.csv has no column "Item"'],
  ])('%s fails the run before anything is sent, as a first one does; validate too', async (_name, first, sources, code, told) => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    writeFileSync(join(dir, 'ma.csv'), first);
    writeFileSync(join(dir, 'mb.csv'), 'sku\nM3\n');
    const result = await runCli(['publish', ...sources, '--report', 'r.csv'], { cwd: dir, env: { ...publishEnv(sandbox.url), ...policies } });
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toContain(told);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect((await sandbox.stats()).requests).toBe(0);
    expect(existsSync(join(dir, 'r.csv'))).toBe(false);
    await sandbox.stop();
    const validated = await runCli(['validate', ...sources], { cwd: dir, env: policies });
    expect(validated.code, validated.stderr).toBe(code);
    expect(validated.stdout).toBe('');
    expect(validated.stderr).toContain(told);
  });
});
