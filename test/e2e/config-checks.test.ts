import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { FLAGS } from '../../src/options/index.js';

/** `listings config` refuses up front what a run would refuse later, and reads any profile it can write. */
describe('listings config: checks at the time of writing', () => {
  const shared = () => ({ env: { LISTINGS_CONFIG_DIR: tempDir() } });

  it('refuses a plain-http base_url to a host that is not loopback, unless told to allow it', async () => {
    const options = shared();
    const refused = await runCli(['config', 'set', 'base_url', 'http://api.example.com'], options);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing to send the API key over plain http to api\.example\.com/);
    expect((await runCli(['config', 'get', 'base_url'], options)).code).toBe(1);
    expect((await runCli(['config', 'set', 'base_url', 'http://api.example.com', '--allow-insecure-http'], options)).code).toBe(0);
    expect((await runCli(['config', 'set', 'base_url', 'http://127.0.0.1:4010'], options)).code).toBe(0);
    expect((await runCli(['config', 'set', 'concurrency', '0'], options)).code).toBe(2);
  });

  it('config get takes --profile, as set and list do', async () => {
    const options = shared();
    expect((await runCli(['config', 'set', '--profile', 'staging', 'marketplace', 'EBAY_GB'], options)).code).toBe(0);
    const got = await runCli(['config', 'get', 'marketplace', '--profile', 'staging'], options);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout.trim()).toBe('EBAY_GB');
    expect((await runCli(['config', 'get', 'marketplace'], options)).code).toBe(1);
  });

  it('config use refuses a profile that does not exist, and says how to make it', async () => {
    const options = shared();
    const refused = await runCli(['config', 'use', 'nosuch'], options);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/no profile named "nosuch"/);
    expect(refused.stderr).toMatch(/listings config set --profile nosuch KEY VALUE/);
    const profiles = await runCli(['config', 'profiles'], options);
    expect(profiles.stdout).not.toMatch(/nosuch/);
    expect((await runCli(['config', 'set', '--profile', 'nosuch', 'marketplace', 'EBAY_DE'], options)).code).toBe(0);
    expect((await runCli(['config', 'use', 'nosuch'], options)).code).toBe(0);
  });
});

/** The operands a command needs before its options are read: a catalog, a SKU. */
const OPERANDS: Record<string, string[]> = { publish: ['c.csv'], validate: ['c.csv'], enqueue: ['c.csv'], create: ['SKU-1'], stream: [] };

describe('an option given both ways is refused, naming both spellings', () => {
  // Every negatable option of every command that takes it, in both orders: commander would keep the last in silence.
  const cases = FLAGS.filter((spec) => spec.negation !== undefined).flatMap((spec) =>
    spec.commands.flatMap((path) => {
      const on = spec.value === undefined ? [`--${spec.name}`] : [`--${spec.name}`, 'given.ndjson'];
      const off = [`--no-${spec.name}`];
      return [
        { path, words: [...on, ...off], first: `--${spec.name}`, second: `--no-${spec.name}`, label: [...on, ...off].join(' ') },
        { path, words: [...off, ...on], first: `--no-${spec.name}`, second: `--${spec.name}`, label: [...off, ...on].join(' ') },
      ];
    }),
  );

  it('covers --journal and --saved-defaults at least', () => {
    expect(cases.map((one) => one.first)).toEqual(expect.arrayContaining(['--journal', '--no-journal', '--saved-defaults', '--no-saved-defaults']));
  });

  it.each(cases)('$path $label: exit 2, before anything is done', async ({ path, words, first, second }) => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'c.csv'), 'sku,price\nA,1\n');
    const result = await runCli([...path.split(' '), ...(OPERANDS[path] ?? []), ...words], { cwd, env: { LISTINGS_BASE_URL: 'http://127.0.0.1:9' } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${first} and ${second} are both given, and they contradict each other: give one of them`);
    expect(readdirSync(cwd), 'nothing written').toEqual(['c.csv']);
  });

  it('the same spelling twice is no conflict, and one spelling alone works', async () => {
    const options = { env: { LISTINGS_CONFIG_DIR: tempDir() } };
    expect((await runCli(['config', 'list', '--saved-defaults', '--saved-defaults'], options)).code).toBe(0);
    expect((await runCli(['config', 'list', '--no-saved-defaults', '--no-saved-defaults'], options)).code).toBe(0);
  });
});

describe('an output named "-"', () => {
  // No output option reads "-" as standard output (`--report -` is refused for its extension): none writes a file of that name.
  const catalog = (): string => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'c.csv'), 'sku,price\nA,1\n');
    return cwd;
  };

  it('validate --out - is refused (exit 2) and writes no file named "-"', async () => {
    const cwd = catalog();
    const result = await runCli(['validate', 'c.csv', '--out', '-', '--saved-defaults', '--marketplace', 'EBAY_US'], { cwd });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('cannot write the --out file -: "-" is not standard output here: name a file (./- for a file named "-")');
    expect(existsSync(join(cwd, '-'))).toBe(false);
  });

  it('validate --out ./- writes a file of that name', async () => {
    const cwd = catalog();
    const named = await runCli(['validate', 'c.csv', '--out', './-', '--saved-defaults', '--marketplace', 'EBAY_US'], { cwd });
    expect(named.code, named.stderr).toBe(0);
    expect(existsSync(join(cwd, '-'))).toBe(true);
  });

  // Before: "it is a symbolic link to a file that does not exist" (/dev/stdout -> /proc/self/fd/1 -> pipe:[N]).
  it('validate --out /dev/stdout --quiet writes the bodies on standard output when it is a pipe (| cat)', () => {
    const cwd = catalog();
    // A shell's pipe: a FIFO (Node's own stdio pipes are sockets, which /dev/stdout cannot open).
    const script = `set -o pipefail; "${process.execPath}" "${BIN}" validate c.csv --out /dev/stdout --quiet --saved-defaults --marketplace EBAY_US | cat`;
    const piped = spawnSync('bash', ['-c', script], { cwd, env: cliEnv(), encoding: 'utf8' });
    expect(piped.status, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout.trim())).toMatchObject({ sku: 'A', marketplace: 'EBAY_US' });
  });

  it('listen --record - is refused (exit 2), said once, and writes no file named "-"', async () => {
    const cwd = tempDir();
    const result = await runCli(['listen', '--port', '0', '--record', '-'], { cwd });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim()).toBe('error cannot write the recording -: "-" is not standard output here: name a file (./- for a file named "-")');
    expect(existsSync(join(cwd, '-'))).toBe(false);
  });

  for (const [label, words] of [
    ['publish --journal -', ['publish', 'c.csv', '--journal', '-']],
    ['publish --changed-only --state -', ['publish', 'c.csv', '--changed-only', '--state', '-', '--no-journal']],
  ] as const) {
    it(`${label} is refused (exit 2) before anything is sent, and writes no file named "-"`, async () => {
      const cwd = catalog();
      const env = { LISTINGS_BASE_URL: 'http://127.0.0.1:9', LISTINGS_API_KEY: 'k-123456789', LISTINGS_MARKETPLACE: 'EBAY_US', LISTINGS_SAVED_DEFAULTS: 'true' };
      const result = await runCli([...words], { cwd, env });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/"-" is not standard output here/);
      expect(existsSync(join(cwd, '-'))).toBe(false);
    });
  }
});
