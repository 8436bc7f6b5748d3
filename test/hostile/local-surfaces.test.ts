import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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
    // Before: a misspelt key or a section in lower case was ignored in silence, its value never used.
    ['a misspelt setting', (dir) => writeFileSync(join(dir, 'config.json'), '{"profiles": {"default": {"fulfilment_policy_id": "F"}}}'), /profiles\["default"\]\.fulfilment_policy_id is not a setting, so it would be ignored: did you mean fulfillment_policy_id\?/],
    ['a section in lower case', (dir) => writeFileSync(join(dir, 'config.json'), '{"profiles": {"default": {"marketplaces": {"ebay_gb": {"condition": "NEW"}}}}}'), /marketplaces\["ebay_gb"\] would be ignored: .*name it "EBAY_GB"/],
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
    // Before: listed as two lines (the second one forged), and the URL parser dropped the line break when sending.
    ['a base_url with a line break', '{"profiles": {"default": {"base_url": "https://a.example/x\\n\u2714 fake"}}}', /base_url from the profile: holds a control character \(U\+000A\) at character 20/],
  ];
  it.each(held)('%s: refused by its key (exit 2)', async (_name, text, message) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), text);
    const result = await runCli(['config', 'list'], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expectNoCrash(result);
  });

  // Before: a current_profile naming no profile of the file (a typo, a profile renamed by hand) was read as an empty
  // profile: every setting of the one meant missing in silence, and doctor ticked the profile as fine.
  it('a current_profile naming a profile the file does not hold is refused naming the known ones; config use fixes it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), '{"current_profile": "prdo", "profiles": {"prod": {"condition": "NEW"}}}');
    for (const args of [['config', 'list'], ['doctor'], ['create', 'SKU-1']]) {
      const result = await runCli(args, { env: { LISTINGS_CONFIG_DIR: dir } });
      expect(result.code, result.stdout + result.stderr).toBe(2);
      expect(result.stdout + result.stderr).toMatch(/current_profile in .* names the profile "prdo", which the file does not hold[\s\S]*known profiles: default, prod; make one active with: listings config use NAME/);
      expectNoCrash(result);
    }
    expect((await runCli(['config', 'use', 'prod'], { env: { LISTINGS_CONFIG_DIR: dir } })).code).toBe(0);
    const fixed = await runCli(['config', 'get', 'condition'], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect([fixed.code, fixed.stdout.trim()]).toEqual([0, 'NEW']);
  });

  // Before: a key written twice kept the last value without a word (list showed USED, the NEW written first lost).
  it('a key written twice in one object is refused by name (exit 2), not the last one kept', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), '{"profiles": {"default": {"condition": "NEW", "condition": "USED"}}}');
    for (const args of [['config', 'list'], ['config', 'get', 'condition'], ['config', 'set', 'marketplace', 'EBAY_US']]) {
      const result = await runCli(args, { env: { LISTINGS_CONFIG_DIR: dir } });
      expect(result.code, result.stdout).toBe(2);
      expect(result.stderr).toContain('holds the key "condition" twice in one object, so one of its values would be lost');
      expect(result.stdout).not.toContain('USED');
    }
  });

  // Before: an empty file read as no settings, but `config set` failed on it ("Unexpected end of JSON input"), and a
  // file saved with a byte order mark (Notepad) was "not valid JSON".
  it.each([['empty', ''], ['white space only', ' \n'], ['with a byte order mark', '\ufeff{"profiles": {"default": {"condition": "NEW"}}}']])('a config file %s is read and written like any other', async (_name, text) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), text);
    const env = { LISTINGS_CONFIG_DIR: dir };
    const set = await runCli(['config', 'set', 'marketplace', 'EBAY_US'], { env });
    expect(set.code, set.stderr).toBe(0);
    const list = await runCli(['config', 'list', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    const settings = (JSON.parse(list.stdout) as { settings: Record<string, { value: unknown }> }).settings;
    expect(settings.marketplace?.value).toBe('EBAY_US');
    expect(settings.condition?.value).toBe(text.includes('NEW') ? 'NEW' : null);
  });

  // Before: the whole name was echoed, 100,000 characters on one line.
  it('a profile name of 100,000 characters is refused (exit 2) or skipped with its name cut short, saying why', async () => {
    const long = 'p'.repeat(100_000);
    const dir = tempDir();
    const fromEnv = await runCli(['config', 'list'], { env: { LISTINGS_CONFIG_DIR: dir, LISTINGS_PROFILE: long } });
    expect(fromEnv.code, fromEnv.stderr).toBe(2);
    expect(fromEnv.stderr).toContain(`not a valid profile name (LISTINGS_PROFILE): "${'p'.repeat(64)}..." (100000 characters)`);
    expect(fromEnv.stderr).toContain('at most 64 characters');
    expect(fromEnv.stderr.length).toBeLessThan(600);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { [long]: {}, default: {} } }));
    const listed = await runCli(['config', 'profiles'], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(`holds a profile named "${'p'.repeat(64)}..." (100000 characters), not a valid profile name`);
    expect(listed.stdout + listed.stderr).not.toContain('p'.repeat(65));
  });

  it('a LISTINGS_CONFIG_DIR with a line break is refused (exit 2), never printed as two lines by config path', async () => {
    const dir = join(tempDir(), 'cfg\n\u2714 fake');
    const result = await runCli(['config', 'path'], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('LISTINGS_CONFIG_DIR holds a control, line-break or direction character');
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\u2714 fake/m);
    expectNoCrash(result);
  });

  it('a value with ESC, BEL and ::error:: is shown escaped, never as a runner command', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { condition: '::error::c\u001b]0;pwn\u0007' }, 'a\u001b[31m': {} } }));
    const env = { LISTINGS_CONFIG_DIR: dir };
    const results = await Promise.all([['config', 'list'], ['config', 'get', 'condition'], ['config', 'profiles']].map((args) => runCli(args, { env })));
    // The condition is an identifier: list and get refuse the profile by that key (config set or unset mends it).
    expect(results.map((result) => result.code)).toEqual([2, 2, 0]);
    expect(results[0]!.stderr).toMatch(/condition from the profile: holds a control character \(U\+001B\)/);
    for (const result of results) {
      // eslint-disable-next-line no-control-regex -- the raw ESC and BEL are what must not reach the terminal
      expect(result.stdout + result.stderr).not.toMatch(/\u001b|\u0007|^\s*::/m);
    }
  });
});

describe('hostile local surfaces: settings from flags, the environment and the config', () => {
  // Before: an identifier with a control character from the environment or the config reached every row (each row
  // refused at its catalog line, the setting never named), `config set` stored it, and `0x10` / `1e3` were read as
  // 16 and 1000.
  const catalog = (): string => {
    const dir = tempDir();
    writeFileSync(join(dir, 'c.csv'), 'sku,images_source\nA-1,https://img.example/a.jpg\n');
    return dir;
  };
  const good = { LISTINGS_MARKETPLACE: 'EBAY_US', LISTINGS_MERCHANT_LOCATION_KEY: 'L', LISTINGS_FULFILLMENT_POLICY_ID: 'F', LISTINGS_PAYMENT_POLICY_ID: 'P', LISTINGS_RETURN_POLICY_ID: 'R' };
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ['a location key with ESC from the environment', [], { LISTINGS_MERCHANT_LOCATION_KEY: 'L\u001b[2J' }, /merchant_location_key from LISTINGS_MERCHANT_LOCATION_KEY: holds a control character \(U\+001B\)/],
    ['a policy id with a direction control from a flag', ['--return-policy-id', 'R\u202eX'], {}, /return_policy_id from --return-policy-id: holds a direction control \(U\+202E\)/],
    ['a marketplace section value with SOH', [], { LISTINGS_MARKETPLACE: 'EBAY_GB', LISTINGS_EBAY_GB_FULFILLMENT_POLICY_ID: 'F\u0001' }, /fulfillment_policy_id for EBAY_GB from LISTINGS_EBAY_GB_FULFILLMENT_POLICY_ID: holds a control character/],
    ['a condition with a line feed', ['--condition', 'NEW\nUSED'], {}, /condition from --condition: holds a control character \(U\+000A\)/],
    ['concurrency 0x10', [], { LISTINGS_CONCURRENCY: '0x10' }, /concurrency from LISTINGS_CONCURRENCY: must be a whole number/],
    ['concurrency 1e3', ['--concurrency', '1e3'], {}, /concurrency from --concurrency: must be a whole number/],
    // Before: the last one was kept without a word, and the rows went to EBAY_GB only.
    ['a flag given twice with two values', ['--marketplace', 'EBAY_US', '--marketplace=EBAY_GB'], {}, /--marketplace is given twice, with different values: give it once/],
  ];
  it.each(cases)('%s: refused where it is set (exit 2), naming the setting', async (_name, args, env, message) => {
    const dir = catalog();
    const command = args.includes('--concurrency') ? 'publish' : 'validate';
    const result = await runCli([command, 'c.csv', ...args, ...(command === 'publish' ? ['--sandbox'] : [])], { cwd: dir, env: { ...good, ...env } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('c.csv:2');
    expectNoCrash(result);
  });

  // Before: undici refused the header on every request: each row failed as a network error after its retries (exit 1).
  it.each([['a line break', 'sandbox-key\r\n'], ['a character past Latin-1', 'sandbox-key€']])('an API key with %s is refused before anything is sent (exit 2), never shown', async (what, key) => {
    const sandbox = await startSandboxProcess([]);
    const dir = catalog();
    const result = await runCli(['publish', 'c.csv'], { cwd: dir, env: { ...good, ...publishEnv(sandbox.url, key) } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`the API key in LISTINGS_API_KEY holds ${what === 'a line break' ? 'a control character (U+000D)' : what}, which no HTTP header can carry`);
    expect(result.stderr).not.toContain('sandbox-key');
    expect((await sandbox.stats()).requests).toBe(0);
  });

  // Before: publish refused it, but doctor passed the key check ("a raw key stored in the profile is used") and then
  // said its request "got no answer: invalid authorization header", with a fix to check base_url.
  it.each([['a control character (U+001B)', 'sandbox-key\u001b[2J'], ['a character past Latin-1', 'sandbox-key€']])('doctor: a raw api_key in the profile holding %s fails the key check (exit 2), never shown', async (what, key) => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { api_key: key, base_url: sandbox.url } } }));
    const result = await runCli(['doctor', '--timeout', '2000'], { cwd: tempDir(), env: { LISTINGS_CONFIG_DIR: dir } });
    expect(result.code, result.stdout).toBe(2);
    expect(result.stdout).toContain(`✖ API key   the api_key of the profile holds ${what}, which no HTTP header can carry`);
    expect(result.stdout).not.toMatch(/invalid authorization header|got no answer/);
    expect(result.stdout + result.stderr).not.toContain('sandbox-key');
    // eslint-disable-next-line no-control-regex -- the raw ESC is what must not reach the terminal
    expect(result.stdout + result.stderr).not.toMatch(/\u001b/);
  });

  // Before: stored without a word (only the warning about raw keys), and every later run refused it.
  it.each([['a control character (U+001B)', 'sandbox-key\u001b[2J'], ['a character past Latin-1', 'sandbox-key€']])('config set api_key refuses a key holding %s (exit 2), stores nothing, never shows it', async (what, key) => {
    const dir = tempDir();
    const result = await runCli(['config', 'set', 'api_key', key], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`api_key: holds ${what}, which no HTTP header can carry`);
    expect(result.stdout + result.stderr).not.toContain('sandbox-key');
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('config set refuses an identifier with a control character, and stores nothing', async () => {
    const dir = tempDir();
    // (A NUL cannot pass through argv at all: the system refuses it before the tool runs.)
    const result = await runCli(['config', 'set', 'merchant_location_key', 'L\u0001X'], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/merchant_location_key: holds a control character \(U\+0001\)/);
    const list = await runCli(['config', 'get', 'merchant_location_key'], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect(list.stdout).not.toContain('L');
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

describe('hostile local surfaces: a catalog key named __proto__', () => {
  // Before: the value set the overrides object's prototype and was gone: the row valid, nothing said.
  it.each([
    ['a CSV column overrides.__proto__', 'c.csv', `${HEADER},overrides.__proto__\n${csvRow(0)},evil\n${csvRow(1)},\n`, 'c.csv:2'],
    ['a JSON record whose overrides hold __proto__', 'c.ndjson', '{"sku":"A-1","overrides":{"condition":"NEW","__proto__":{"price":1}}}\n{"sku":"A-2","overrides":{"condition":"NEW"}}\n', 'c.ndjson:1'],
  ])('%s: that row is invalid at its place, the other valid', async (_name, name, text, place) => {
    const dir = tempDir();
    writeFileSync(join(dir, name), text);
    const result = await runCli(['validate', name, '--marketplace', 'EBAY_US', '--merchant-location-key', 'l', '--fulfillment-policy-id', 'f', '--payment-policy-id', 'p', '--return-policy-id', 'r'], { cwd: dir });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout + result.stderr).toContain(`${place}: [EBAY_US] overrides.__proto__: a key named __proto__ cannot be sent`);
    expect(result.stderr).toContain('2 rows: 1 valid, 1 invalid');
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
    writeFileSync(join(dir, 'r.csv'), 'source,line,sku,outcome\ncatalog.csv,2,NOT-IN-CATALOG,failed\n"=cmd|\' /c calc\'!A1",3,X,failed\n');
    const result = await runCli(['publish', catalog, '--retry-failed', join(dir, 'r.csv'), '--report', join(dir, 'out.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    const rows = readFileSync(join(dir, 'out.csv'), 'utf8').trim().split('\n').slice(1);
    expect(rows).toHaveLength(5);
    // A line no report holds (1e300) is a damaged report: refused, never read as reaching every row (or none).
    writeFileSync(join(dir, 'r.csv'), 'source,line,sku,outcome\ncatalog.csv,2,NOT-IN-CATALOG,failed\n"=cmd|\' /c calc\'!A1",1e300,X,failed\n');
    const before = (await sandbox.stats()).requests;
    const damaged = await runCli(['publish', catalog, '--retry-failed', join(dir, 'r.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(damaged.code, damaged.stderr).toBe(2);
    expect(damaged.stderr).toContain('row 2: its line "1e300" is not a line number');
    expectNoCrash(damaged);
    expect((await sandbox.stats()).requests).toBe(before);
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

describe('hostile local surfaces: a FIFO planted where the tool reads a file back', () => {
  // Before: opening a FIFO to read waits for a writer that never comes; the process hung, and a SIGTERM's clean stop
  // waited on it too (only SIGKILL ended it).
  const fifo = (path: string): string => {
    execFileSync('mkfifo', [path]);
    return path;
  };
  const inTime = { timeoutMs: 15_000 };

  it('the config file: refused (exit 2), saying it is a FIFO', async () => {
    const dir = tempDir();
    fifo(join(dir, 'config.json'));
    const result = await runCli(['config', 'list'], { env: { LISTINGS_CONFIG_DIR: dir }, ...inTime });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('it is a FIFO (a named pipe), not a file');
    expectNoCrash(result);
  });

  it('a --mapping file and a --retry-failed report: refused (exit 2), nothing sent', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 3);
    for (const args of [['--mapping', fifo(join(dir, 'm.json'))], ['--retry-failed', fifo(join(dir, 'r.csv'))]]) {
      const result = await runCli(['publish', catalog, ...args], { cwd: dir, env: publishEnv(sandbox.url), ...inTime });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('it is a FIFO (a named pipe), not a file');
      expectNoCrash(result);
    }
    expect((await sandbox.stats()).requests).toBe(0);
  });

  // The journal itself: read back as nothing; written, it needs a program that reads it (before: its writes went into
  // the pipe's buffer, lost, or once the buffer was full waited for ever), so with none it is refused within 10 s.
  it('the lock of the journal: a lock that does not say who holds it (exit 2); the journal itself under --resume: nothing to read back, and no reader: exit 2, nothing sent', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 3);
    const journal = join(dir, 'journal.ndjson');
    fifo(`${journal}.lock`);
    const locked = await runCli(['publish', catalog, '--journal', journal], { cwd: dir, env: publishEnv(sandbox.url), ...inTime });
    expect(locked.code, locked.stderr).toBe(2);
    expect(locked.stderr).toContain('which does not say which run holds it');
    expect((await sandbox.stats()).requests).toBe(0);
    const other = join(dir, 'other.ndjson');
    fifo(other);
    const resumed = await runCli(['publish', catalog, '--resume', '--journal', other], { cwd: dir, env: publishEnv(sandbox.url), ...inTime });
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toContain('it is a named pipe that no program opened to read within 10 s');
    expectNoCrash(resumed);
    expect((await sandbox.stats()).requests).toBe(0);
  });
});

describe('hostile local surfaces: a catalog with no end', () => {
  // Before: an NDJSON line over 1 MiB was skipped to its line break, and /dev/zero has none: the run read it for
  // ever (bounded memory, unbounded time), saying nothing after "the line is longer than 1 MiB".
  it('/dev/zero read as NDJSON: its line is skipped 256 MiB at most, then the source is given up (exit 4), the line in the report once', async () => {
    const dir = tempDir();
    const report = join(dir, 'r.ndjson');
    const result = await runCli(['validate', '/dev/zero', '--format', 'ndjson', '--report', report, '--json'], { cwd: dir, timeoutMs: 20_000 });
    expectNoCrash(result);
    expect(result.code, result.stderr).toBe(4);
    const summary = JSON.parse(result.stdout) as { rows: number; invalid: number; unread: { reason: string }; verdict: { why: string } };
    expect(summary).toMatchObject({ rows: 1, invalid: 1, unread: { reason: 'row_too_large' } });
    expect(summary.verdict.why).toContain('/dev/zero:1: not read to its end: the line runs on for over 256 MiB without a line break');
    const rows = readFileSync(report, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { line?: number; message?: string });
    expect(rows.filter((row) => row.line === 1)).toHaveLength(1);
  });
});
