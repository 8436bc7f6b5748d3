import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import type { RunSummary } from '../../src/report/summary.js';
import { publishEnv } from '../helpers/publish.js';

/**
 * Issue 11 item 4: a setting that no flag, env or profile gives and that no row gives is one error up front (exit 2)
 * naming it and the ways to give it, judged from the first rows, with nothing sent; not one error per row.
 */

const POLICY_COLUMNS = 'merchant_location_key,fulfillment_policy_id,payment_policy_id,return_policy_id';
const POLICY_CELLS = 'wh-1,FULFILL-1,PAY-1,RETURN-1';
const POLICY_SETTINGS = ['merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id'];

function row(i: number): string {
  return `SKU-${i},Item ${i},https://images.example.com/${i}.jpg`;
}

/** A CSV in a fresh directory: `header` then `rows` lines made by `line`. */
function catalog(header: string, rows: number, line: (i: number) => string): { dir: string; path: string } {
  const dir = tempDir();
  const path = join(dir, 'catalog.csv');
  writeFileSync(path, `${[header, ...Array.from({ length: rows }, (_, i) => line(i))].join('\n')}\n`);
  return { dir, path };
}

/** No marketplace column; the policy columns filled. */
const noMarketplace = (rows = 20) => catalog(`sku,title,images_source,${POLICY_COLUMNS}`, rows, (i) => `${row(i)},${POLICY_CELLS}`);
/** A marketplace column; no policy columns. */
const noPolicies = (rows = 20) => catalog('sku,title,images_source,marketplace', rows, (i) => `${row(i)},EBAY_US`);

/** The one up-front error: exit 2, no stack trace, no per-row lines, each setting named once with its flag, env, profile key and column. */
function expectOneError(result: CliResult, settings: string[]): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toMatch(/internal error|\n\s+at |is required|\.csv:\d+:/);
  expect(result.stderr.match(/^error /gm)).toHaveLength(1);
  expect(result.stderr).toMatch(new RegExp(`^error ${settings.join(', ')} (is|are) not set`, 'm'));
  for (const setting of settings) {
    const flag = `--${setting.replace(/_/g, '-')}`;
    const env = `LISTINGS_${setting.toUpperCase()}`;
    expect(result.stderr).toContain(`\n  ${setting}: ${flag} <`);
    expect(result.stderr).toContain(`${env}=<`);
    expect(result.stderr).toContain(`listings config set ${setting} <`);
    expect(result.stderr).toContain(`or a ${setting} column in the catalog`);
  }
}

describe.concurrent('a setting no row gives: one error up front, exit 2, nothing sent', () => {
  it('publish --sandbox, no marketplace anywhere: exit 2, one message, no summary', async () => {
    const { dir, path } = noMarketplace();
    const result = await runCli(['publish', path, '--sandbox', '--json', '--no-journal'], { cwd: dir });
    expectOneError(result, ['marketplace']);
    expect(result.stderr).toContain('none of the 20 rows of');
    expect(result.stderr).toContain('hint  the flat shape takes a marketplace such as EBAY_US');
  });

  it('publish against a sandbox process, no policy ids and no saved defaults: all four in one message, the service receives nothing', async () => {
    const sandbox = await startSandboxProcess([]);
    const { dir, path } = noPolicies();
    const result = await runCli(['publish', path, '--report', join(dir, 'r.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expectOneError(result, POLICY_SETTINGS);
    expect(result.stderr).toMatch(/^hint .*--saved-defaults/m);
    expect(await sandbox.stats()).toMatchObject({ requests: 0, created: 0 });
    // Refused before any output was opened: no empty report left behind.
    expect(existsSync(join(dir, 'r.csv'))).toBe(false);
  });

  it('validate, no marketplace anywhere: exit 2, one message instead of a line per row', async () => {
    const { path } = noMarketplace();
    expectOneError(await runCli(['validate', path]), ['marketplace']);
  });

  it('validate, nothing but sku and title: every missing setting in one message', async () => {
    const { path } = catalog('sku,title', 3, (i) => `SKU-${i},Item ${i}`);
    expectOneError(await runCli(['validate', path, '--json']), ['marketplace', ...POLICY_SETTINGS]);
  });

  it('judged from the first 100 rows of a longer catalog: values from row 101 on do not count', async () => {
    const { path } = catalog(`sku,title,images_source,marketplace,${POLICY_COLUMNS}`, 150, (i) => `${row(i)},${i < 100 ? '' : 'EBAY_US'},${POLICY_CELLS}`);
    const result = await runCli(['validate', path]);
    expectOneError(result, ['marketplace']);
    expect(result.stderr).toContain(`none of the first 100 rows of ${path} has a value for it`);
  });
});

describe.concurrent('when the setting comes from somewhere: no up-front error', () => {
  it('the column is there and only some rows lack the value: those rows stay invalid, one by one, as before', async () => {
    const { dir, path } = catalog(`sku,title,images_source,marketplace,${POLICY_COLUMNS}`, 10, (i) => `${row(i)},${i % 3 === 0 ? '' : 'EBAY_US'},${POLICY_CELLS}`);
    const [validated, published] = await Promise.all([runCli(['validate', path]), runCli(['publish', path, '--sandbox', '--json', '--no-journal'], { cwd: dir })]);
    expect(validated.code).toBe(1);
    expect(validated.stdout.trim().split('\n')).toEqual([2, 5, 8, 11].map((line) => `${path}:${line}: marketplace: is required (set it in the row, with --marketplace or in the profile)`));
    expect(published.code).toBe(1);
    expect(JSON.parse(published.stdout) as RunSummary).toMatchObject({ rows: 10, published: 6, invalid: 4 });
  });

  it('with saved defaults the policy ids are not required: published, exit 0', async () => {
    const { dir, path } = noPolicies(5);
    const [validated, published] = await Promise.all([
      runCli(['validate', path, '--saved-defaults']),
      runCli(['publish', path, '--sandbox', '--json', '--no-journal'], { cwd: dir, env: { LISTINGS_SAVED_DEFAULTS: 'true' } }),
    ]);
    expect(validated.code, validated.stdout).toBe(0);
    expect(published.code, published.stderr).toBe(0);
    expect(JSON.parse(published.stdout) as RunSummary).toMatchObject({ rows: 5, published: 5 });
  });

  it('the ways the message names work: environment, profile (flags are used throughout the suite)', async () => {
    const { dir, path } = noMarketplace(3);
    const config = join(dir, 'config');
    const fromProfile = async () => {
      expect((await runCli(['config', 'set', 'marketplace', 'EBAY_US'], { env: { LISTINGS_CONFIG_DIR: config } })).code).toBe(0);
      return runCli(['publish', path, '--sandbox', '--json', '--no-journal'], { cwd: dir, env: { LISTINGS_CONFIG_DIR: config } });
    };
    const [env, profile] = await Promise.all([runCli(['validate', path], { env: { LISTINGS_MARKETPLACE: 'EBAY_US' } }), fromProfile()]);
    expect([env.code, profile.code], profile.stderr).toEqual([0, 0]);
    expect(JSON.parse(profile.stdout) as RunSummary).toMatchObject({ rows: 3, published: 3 });
  });
});
