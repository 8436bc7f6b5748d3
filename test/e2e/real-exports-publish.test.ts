import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishEnv } from '../helpers/publish.js';

// Real exports none of us wrote (../shared/testdata/README.md), read in place; never copied into the repository.
const TESTDATA = join(REPO_ROOT, '..', 'shared', 'testdata');
const CATALOGS = join(TESTDATA, 'catalogs');
const present = existsSync(CATALOGS);
if (!present) console.warn(`real-exports-publish: skipped, ${TESTDATA} is absent (the exports are not redistributed)`);
const title = present ? 'real exports through the built CLI' : `real exports through the built CLI (skipped: ${TESTDATA} is absent)`;

interface ReportRow {
  line: number;
  sku: string | null;
  outcome: string;
  title: string | null;
  error: string | null;
}

/** The rows of an NDJSON report (its last line is the summary). */
function reportRows(path: string): ReportRow[] {
  return readFileSync(path, 'utf8').split('\n').filter((line) => line !== '' && !line.startsWith('{"summary"')).map((line) => JSON.parse(line) as ReportRow);
}

describe.skipIf(!present)(title, () => {
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--saved-defaults']);
  });
  afterAll(async () => {
    await sandbox.stop();
  });
  const wrapped = ['--marketplace', 'ebay', '--shape', 'wrapped', '--saved-defaults'];

  it('Google Retail NDJSON: each of the 1,276 lines in the report once, titles as written, the repeated id refused at its line', async () => {
    const file = join(CATALOGS, 'ndjson-json-catalogs', 'google-retail-sample-products.ja.jsonl');
    const report = join(tempDir(), 'report.ndjson');
    const run = await runCli(['publish', file, '--map', 'sku=id', ...wrapped, '--report', report], { env: publishEnv(sandbox.url) });
    expect(run.code, run.stderr).toBe(1);
    const written = readFileSync(file, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { id: string; title: string });
    const rows = reportRows(report);
    expect(rows.map((row) => row.line)).toEqual(written.map((_, i) => i + 1));
    expect(rows.filter((row) => row.outcome !== 'published')).toEqual([expect.objectContaining({ line: 1272, sku: 'POKEMONP004', outcome: 'invalid', error: `sku: duplicate SKU; first seen at ${file}:1271` })]);
    const published = rows.filter((row) => row.outcome === 'published');
    expect(published.map((row) => [row.sku, row.title])).toEqual(written.filter((_, i) => i !== 1271).map((product) => [product.id, product.title]));
  });

  it('Google Retail NDJSON: --map images_source=images.uri, where images is a list of objects, is a located error in every row, not listings sent without images', async () => {
    const file = join(CATALOGS, 'ndjson-json-catalogs', 'google-retail-sample-products.ja.jsonl');
    const run = await runCli(['validate', file, '--map', 'sku=id', '--map', 'images_source=images.uri', '--marketplace', 'EBAY_US', '--saved-defaults', '--show-errors', '1']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain(`${file}:1: [EBAY_US] images_source: read from "images.uri", but "images" is a list, not an object holding "uri"`);
    expect(run.stderr).toContain('1,276 rows: 0 valid, 1,276 invalid');
  });

  it('commercetools CSV: titles with typographic quotes sent and answered as written', async () => {
    const report = join(tempDir(), 'report.ndjson');
    const file = join(CATALOGS, 'commercetools-sunrise-data', 'products-ci.csv');
    const run = await runCli(['publish', file, '--map', 'title=name.en', ...wrapped, '--report', report], { env: publishEnv(sandbox.url) });
    expect(run.code, run.stderr).toBe(0);
    expect(reportRows(report).map((row) => [row.line, row.sku, row.outcome, row.title])).toEqual([
      [2, 'M0E20000000DX1Y', 'published', 'Sneakers ”R261” Hogan Rebel grey'],
      [3, 'M0E20000000ELAJ', 'published', 'Flip Flops “Brasil“ Havaianas green'],
      [4, 'M0E20000000ELBX', 'published', 'Flip Flops “Brasil“ Havaianas grey'],
    ]);
  });

  it('Shopify 2025 template: the draft and archived products are skipped with why, each row once, only the active product sent', async () => {
    const file = join(CATALOGS, 'shopify', 'product_template_2025.csv');
    const report = join(tempDir(), 'report.ndjson');
    const before = await sandbox.stats();
    const run = await runCli(['publish', file, '--preset', 'shopify', '--marketplace', 'EBAY_US', '--saved-defaults', '--no-journal', '--report', report], { env: publishEnv(sandbox.url) });
    expect(run.code, run.stderr).toBe(0);
    const rows = reportRows(report) as Array<ReportRow & { reason: string | null }>;
    expect(rows.map((row) => row.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18]);
    expect(rows.filter((row) => row.outcome === 'published')).toHaveLength(12);
    expect(rows.filter((row) => row.outcome !== 'published').map((row) => [row.line, row.sku, row.outcome, row.reason])).toEqual([
      [14, 'PNT_DEN_285', 'skipped', 'not active in Shopify (Status "draft"): only active products are listed'],
      [15, 'PNT_DEN_305', 'skipped', 'not active in Shopify (Status "draft"): only active products are listed'],
      [16, 'PNT_DEN_405', 'skipped', 'not active in Shopify (Status "draft"): only active products are listed'],
      [18, 'HAT_GRY_275', 'skipped', 'not active in Shopify (Status "archived"): only active products are listed'],
    ]);
    expect((await sandbox.stats()).requests - before.requests).toBe(12);
  });

  it('two Shopify exports joined (cat apparel.csv jewelery.csv): the second header row is an invalid row saying so, never a listing; every other row as alone', async () => {
    // Two exports of the same header (apparel's and jewelery's), the first ending with its line break.
    const first = readFileSync(join(CATALOGS, 'shopify', 'apparel.csv'), 'utf8').replace(/(\r\n|\n)?$/, '\r\n');
    const joined = join(tempDir(), 'joined.csv');
    writeFileSync(joined, first + readFileSync(join(CATALOGS, 'shopify', 'jewelery.csv'), 'utf8'));
    const headerLine = first.split(/\r\n|\n|\r/).length;
    const report = join(tempDir(), 'report.ndjson');
    const run = await runCli(['publish', joined, '--preset', 'shopify', '--marketplace', 'EBAY_US', '--saved-defaults', '--no-journal', '--report', report], { env: publishEnv(sandbox.url) });
    expect(run.code, run.stderr).toBe(1);
    const rows = reportRows(report);
    expect(rows.filter((row) => row.outcome !== 'published')).toEqual([
      expect.objectContaining({ line: headerLine, sku: null, outcome: 'invalid', error: "(record): the row repeats the header row (each cell is its column's name): is a second export joined to this one? It is not a product" }),
    ]);
    expect(rows.filter((row) => row.outcome === 'published')).toHaveLength(22 + 23);
  });

  it('a header that is not the preset\'s export is refused with exit 2 though no row follows it (sineemore bad-header-wrong-header.csv)', async () => {
    const file = join(TESTDATA, 'sineemore-csv-test-data', 'csv', 'bad-header-wrong-header.csv');
    const run = await runCli(['validate', file, '--preset', 'shopify', '--marketplace', 'EBAY_US', '--saved-defaults']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`--preset shopify: ${file} has no "Handle", "Variant SKU" column; is it a shopify product export?`);
  });
});
