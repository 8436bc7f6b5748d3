import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { csvRow, HEADER, publishEnv, writeCatalog } from '../helpers/publish.js';

/**
 * Hostile corpus: the local surfaces an attacker (or a bad edit) controls. The config file edited by hand, a mapping
 * file, a report fed back to --retry-failed, a journal planted under .listings/, each run through the built binary.
 * Every case ends in a located error or the right result: never a crash, a hang, or a value lost without a word.
 */

function expectNoCrash(result: CliResult): void {
  expect(result.stderr).not.toMatch(/internal error|\n\s+at |RangeError|Node\.js v/);
}

describe('hostile local surfaces: the config file, edited by hand', () => {
  const deep = `{"profiles": {"default": {"x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;
  // Before: `profiles: "x"` and the deep file made `config set` crash (exit 70); `profiles: []` took the value and
  // wrote nothing; `[4]` was read as 4; the file linked to /dev/zero was read up to 600 MB.
  const refused: [string, (dir: string) => void, RegExp][] = [
    ['profiles a string', (dir) => writeFileSync(join(dir, 'config.json'), '{"profiles": "x"}'), /profiles is a string, not an object of profiles/],
    ['profiles an array', (dir) => writeFileSync(join(dir, 'config.json'), '{"profiles": []}'), /profiles is an array, not an object of profiles/],
    ['a profile an array', (dir) => writeFileSync(join(dir, 'config.json'), '{"profiles": {"default": [1, 2]}}'), /profiles\["default"\] is an array/],
    ['a setting an array', (dir) => writeFileSync(join(dir, 'config.json'), '{"profiles": {"default": {"concurrency": [4]}}}'), /profiles\["default"\]\.concurrency is an array/],
    ['marketplace sections a string', (dir) => writeFileSync(join(dir, 'config.json'), '{"profiles": {"default": {"marketplaces": "EBAY_GB"}}}'), /marketplaces is a string/],
    ['nested 100,000 deep', (dir) => writeFileSync(join(dir, 'config.json'), deep), /nests objects and arrays deeper than 64 levels/],
    ['a link to /dev/zero', (dir) => symlinkSync('/dev/zero', join(dir, 'config.json')), /larger than 1 MiB/],
  ];
  it.each(refused)('%s: config set and config list refuse it by its key (exit 2), the file unchanged', async (_name, plant, message) => {
    const dir = tempDir();
    plant(dir);
    const before = _name.includes('/dev/zero') ? '' : readFileSync(join(dir, 'config.json'), 'utf8');
    for (const args of [['config', 'set', 'concurrency', '4'], ['config', 'list']]) {
      const result = await runCli(args, { env: { LISTINGS_CONFIG_DIR: dir }, timeoutMs: 15_000 });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
      expectNoCrash(result);
    }
    if (before !== '') expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  const held: [string, string, RegExp][] = [
    ['concurrency 9007199254740993', '{"profiles": {"default": {"concurrency": 9007199254740993}}}', /concurrency from the profile: must be a whole number from 1 to 4096/],
    ['concurrency 1e400', '{"profiles": {"default": {"concurrency": 1e400}}}', /concurrency from the profile: must be a whole number/],
    ['a current_profile that is no profile name', '{"current_profile": "../x"}', /not a valid profile name \(current_profile in/],
  ];
  it.each(held)('%s: refused by its key (exit 2)', async (_name, text, message) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), text);
    const result = await runCli(['config', 'list'], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expectNoCrash(result);
  });

  it('a value with ESC, BEL and ::error:: is shown escaped, never as a runner command', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { condition: '::error::c\u001b]0;pwn\u0007' }, 'a\u001b[31m': {} } }));
    const env = { LISTINGS_CONFIG_DIR: dir };
    const results = await Promise.all([['config', 'list'], ['config', 'get', 'condition'], ['config', 'profiles']].map((args) => runCli(args, { env })));
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      // eslint-disable-next-line no-control-regex -- the raw ESC and BEL are what must not reach the terminal
      expect(result.stdout + result.stderr).not.toMatch(/\u001b|\u0007|^\s*::/m);
    }
  });
});

describe('hostile local surfaces: --mapping and --map', () => {
  it('a mapping file that is /dev/zero is refused at 1 MiB (exit 2), not read to the string limit', async () => {
    const dir = tempDir();
    const catalog = writeCatalog(dir, 3);
    const result = await runCli(['validate', catalog, '--mapping', '/dev/zero'], { cwd: dir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/--mapping \/dev\/zero: cannot read it \(it is larger than 1 MiB/);
  });

  // Before: the column's value was given to the overrides object's prototype: the row valid, the value gone.
  it.each([
    ['--map', (_dir: string) => ['--map', 'overrides.__proto__=Col']],
    ['--mapping', (dir: string) => (writeFileSync(join(dir, 'm.json'), '{"overrides.__proto__": "Col"}'), ['--mapping', join(dir, 'm.json')])],
  ])('%s overrides.__proto__ is refused (exit 2), not dropped without a word', async (_name, args) => {
    const dir = tempDir();
    const catalog = join(dir, 'catalog.csv');
    writeFileSync(catalog, `${HEADER},Col\n${csvRow(0)},evil\n`);
    const result = await runCli(['validate', catalog, ...args(dir)], { cwd: dir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/"overrides\.__proto__" is not a listing field/);
  });
});

describe('hostile local surfaces: --retry-failed and --resume read back what an attacker wrote', () => {
  // Before: an NDJSON report crashed with readline's RangeError and a stack trace (exit 1); a CSV report grew to
  // gigabytes and SIGTERM did not stop it. The JSON report held.
  it.each(['report.ndjson', 'report.csv', 'report.json'])('a report %s linked to /dev/zero: refused at its first row (exit 2), nothing sent', async (name) => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 5);
    symlinkSync('/dev/zero', join(dir, name));
    const result = await runCli(['publish', catalog, '--retry-failed', join(dir, name)], { cwd: dir, env: publishEnv(sandbox.url), timeoutMs: 15_000 });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`--retry-failed .*${name.replace('.', '\\.')}: not a readable listings report: .*(1 MiB|1048576|not JSON|expected a value)`));
    expectNoCrash(result);
    expect((await sandbox.stats()).requests).toBe(0);
  });

  it('a report row over 1 MiB (an edited JSON report) is refused as it streams', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 5);
    writeFileSync(join(dir, 'r.json'), `{"rows":[{"outcome":"failed","sku":"${'a'.repeat(2 * 1024 * 1024)}"}]}`);
    const result = await runCli(['publish', catalog, '--retry-failed', join(dir, 'r.json')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/not a readable listings report: .*longer than 1 MiB/);
  });

  it('a report whose rows are nested 100,000 deep is refused, not crashed on', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 5);
    writeFileSync(join(dir, 'r.ndjson'), `{"outcome":"failed","sku":${'['.repeat(100_000)}${']'.repeat(100_000)}}\n`);
    const result = await runCli(['publish', catalog, '--retry-failed', join(dir, 'r.ndjson')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/r\.ndjson:1: the line nests objects and arrays deeper than 64 levels/);
    expectNoCrash(result);
  });

  it('a report listing SKUs the catalog does not have: every catalog row still ends in the report once', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 5);
    writeFileSync(join(dir, 'r.csv'), 'source,line,sku,outcome\ncatalog.csv,2,NOT-IN-CATALOG,failed\n"=cmd|\' /c calc\'!A1",1e300,X,failed\n');
    const result = await runCli(['publish', catalog, '--retry-failed', join(dir, 'r.csv'), '--report', join(dir, 'out.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    const rows = readFileSync(join(dir, 'out.csv'), 'utf8').trim().split('\n').slice(1);
    expect(rows).toHaveLength(5);
  });

  // Before: readline read /dev/zero into one line until the string limit: a RangeError and a stack trace, exit 1.
  it('--resume with a journal linked to /dev/zero reads nothing from it and publishes every row', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 5);
    mkdirSync(join(dir, 'j'));
    symlinkSync('/dev/zero', join(dir, 'j', 'journal.ndjson'));
    const result = await runCli(['publish', catalog, '--resume', '--journal', join(dir, 'j', 'journal.ndjson')], { cwd: dir, env: publishEnv(sandbox.url), timeoutMs: 15_000 });
    expect(result.code, result.stderr).toBe(0);
    expectNoCrash(result);
    expect((await sandbox.stats()).created).toBe(5);
  });
});
