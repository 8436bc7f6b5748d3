import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, cliEnv, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const POLICIES = ['--merchant-location-key', 'wh-1', '--fulfillment-policy-id', 'f-1', '--payment-policy-id', 'p-1', '--return-policy-id', 'r-1'];
const ERRORS = 'fixtures/catalog-with-errors.csv';

/** stderr without the next step that ends a run with invalid rows (test/e2e/next-step.test.ts checks it). */
function beforeNextStep(stderr: string): string {
  return stderr.trim().replace(/\nnext {2}[^\n]*\n {2}listings validate [^\n]*$/, '');
}

interface JsonResult {
  rows: number;
  input_rows: number;
  valid: number;
  invalid: number;
  skipped?: number;
  errors: Array<{ source: string; line: number | null; record?: number; field: string; message: string }>;
  errors_not_shown: number;
}

describe.concurrent('listings validate: valid catalogs', () => {
  it.each(['fixtures/catalog.csv', 'fixtures/catalog.json', 'fixtures/catalog.ndjson', 'fixtures/catalog.csv.gz'])('%s: exit 0, no errors, a summary on stderr', async (file) => {
    const result = await runCli(['validate', file]);
    expect(result.stdout).toBe('');
    expect(beforeNextStep(result.stderr)).toBe('20 rows: 20 valid, 0 invalid');
    expect(result.code).toBe(0);
  });

  it('reads stdin with --format', async () => {
    const result = await runCli(['validate', '-', '--format', 'csv'], { input: readFileSync(join(REPO_ROOT, 'fixtures/catalog.csv'), 'utf8') });
    expect(beforeNextStep(result.stderr)).toBe('20 rows: 20 valid, 0 invalid');
    expect(result.code).toBe(0);
  });

  it('a directory redirected to stdin is a usage error, not an empty catalog', () => {
    const dir = tempDir();
    const fd = openSync(dir, 'r');
    try {
      const result = spawnSync(process.execPath, [BIN, 'validate', '-'], { stdio: [fd, 'pipe', 'pipe'], env: cliEnv(), encoding: 'utf8', timeout: 30_000 });
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/a directory is redirected to it/);
      expect(result.stderr).not.toMatch(/empty|\n\s+at /);
    } finally {
      closeSync(fd);
    }
  });

  it('validates several sources as one run: a SKU repeated across them is a duplicate', async () => {
    const result = await runCli(['validate', 'fixtures/catalog.csv', 'fixtures/catalog.json']);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe('fixtures/catalog.json#1: [EBAY_US] sku: duplicate SKU; first seen at fixtures/catalog.csv:2');
    expect(beforeNextStep(result.stderr)).toBe('40 rows: 20 valid, 20 invalid');
  });
});

describe.concurrent('listings validate: invalid rows', () => {
  it('prints compiler-style located lines and exits 1', async () => {
    const result = await runCli(['validate', ERRORS]);
    expect(result.stdout.trim().split('\n')).toEqual([
      `${ERRORS}:3: [EBAY_US] images_source[1]: not an absolute http(s) URL: "images/mug-sand-2.jpg" (a path: give the address it is under with --image-base-url or in the profile)`,
      `${ERRORS}:4: [ebay] marketplace: "ebay" is the wrapped shape's form; the flat shape needs the upper-case form with a region, e.g. EBAY_US`,
      `${ERRORS}:5: [EBAY_US] fulfillment_policy_id: is required (no saved defaults; set it in the row, with --fulfillment-policy-id or in the profile)`,
      `${ERRORS}:6: [EBAY_US] sku: duplicate SKU; first seen at ${ERRORS}:2`,
      `${ERRORS}:7: [EBAY_US] sku: is required`,
    ]);
    expect(beforeNextStep(result.stderr)).toBe('7 rows: 2 valid, 5 invalid');
    expect(result.code).toBe(1);
  });

  it('a record the parser cannot read is reported at its line; the rows around it are still validated', async () => {
    const file = join(tempDir(), 'broken.csv');
    writeFileSync(file, 'sku,marketplace\nA,EBAY_US\nB,EBAY_US,extra\nC,EBAY_US\n');
    const result = await runCli(['validate', file, '--saved-defaults']);
    expect(result.stdout.trim().split('\n')).toEqual([`${file}:3: the row has 3 fields but the header has 2: a value holding the delimiter must be quoted`]);
    expect(result.stderr).toContain(`notice: ${file}: 0 of 2 rows have images_source`);
    expect(beforeNextStep(result.stderr).split('\n').at(-1)).toBe('3 rows: 2 valid, 1 invalid');
    expect(result.code).toBe(1);
  });

  it('a marketplace cell listing several is told as such, in both shapes, and the rows without one fan out to --marketplace', async () => {
    const file = join(tempDir(), 'mk.csv');
    writeFileSync(file, 'sku,title,marketplace\nA,Alpha,"EBAY_US,EBAY_GB"\nB,Beta,\n');
    const several = 'marketplace: "EBAY_US,EBAY_GB" names several marketplaces; a row names one: give a row to each, or leave the column empty and list them in the marketplace setting (a flag, LISTINGS_MARKETPLACE or the profile), which sends every row to each';
    const flat = await runCli(['validate', file, '--saved-defaults', '--marketplace', 'EBAY_US,EBAY_DE']);
    expect(flat.stdout.trim().split('\n')).toEqual([`${file}:2: [EBAY_US,EBAY_GB] ${several}`]);
    expect(beforeNextStep(flat.stderr).split('\n').at(-1)).toBe('2 input rows, 3 listings: 2 valid, 1 invalid');
    const wrapped = await runCli(['validate', file, '--saved-defaults', '--shape', 'wrapped', '--marketplace', 'ebay']);
    expect(wrapped.stdout.trim().split('\n')).toEqual([`${file}:2: [EBAY_US,EBAY_GB] ${several}`]);
  });

  it('a U+FFFD written as UTF-8 is a value: only the rows whose own bytes are not UTF-8 are refused (CSV, JSON, NDJSON)', async () => {
    const dir = tempDir('listings-fffd-');
    const env = { LISTINGS_MARKETPLACE: 'EBAY_US' };
    const notUtf8 = 'is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)';
    const csv = join(dir, 's3.csv');
    writeFileSync(csv, Buffer.from('sku,overrides.n\nZ0,\xef\xbf\xbd\nZ1,caf\xe9\n', 'latin1'));
    const json = join(dir, 'w.json');
    writeFileSync(json, Buffer.from('[{"sku":"W1","overrides":{"note":"\xef\xbf\xbd"}},{"sku":"W3","overrides":{"note":"caf\xe9"}}]', 'latin1'));
    const ndjson = join(dir, 'w.ndjson');
    writeFileSync(ndjson, Buffer.from('{"sku":"N1","overrides":{"note":"\xef\xbf\xbd"}}\n{"sku":"N3","overrides":{"note":"caf\xe9"}}\n', 'latin1'));
    for (const [file, refused] of [
      [csv, `${csv}:3: the row ${notUtf8}`],
      [json, `${json}#2: record 2 ${notUtf8}`],
      [ndjson, `${ndjson}:2: the line ${notUtf8}`],
    ]) {
      const result = await runCli(['validate', file!, ...POLICIES], { env });
      expect(result.stdout.trim()).toBe(refused);
      expect(beforeNextStep(result.stderr).split('\n').at(-1)).toBe('2 rows: 1 valid, 1 invalid');
      expect(result.code).toBe(1);
    }
  });

  it('defaults from flags fill what rows leave empty (row value still wins)', async () => {
    const result = await runCli(['validate', ERRORS, '--fulfillment-policy-id', 'f-9']);
    expect(result.stdout).not.toContain(':5:');
    expect(beforeNextStep(result.stderr)).toBe('7 rows: 3 valid, 4 invalid');
  });

  it('--show-errors N prints N lines then the count of the rest; every row is still validated', async () => {
    const result = await runCli(['validate', ERRORS, '--show-errors', '2']);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('... and 3 more errors');
    expect(beforeNextStep(result.stderr)).toBe('7 rows: 2 valid, 5 invalid');
    expect(result.code).toBe(1);
  });

  it('--max-errors N stops validating after N invalid rows, as it stops a publish: the rest not validated, each in the report once as not_attempted, the verdict says why', async () => {
    const report = join(tempDir('validate-max-errors-'), 'run.csv');
    const result = await runCli(['validate', ERRORS, '--max-errors', '2', '--report', report]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      `${ERRORS}:3: [EBAY_US] images_source[1]: not an absolute http(s) URL: "images/mug-sand-2.jpg" (a path: give the address it is under with --image-base-url or in the profile)`,
      `${ERRORS}:4: [ebay] marketplace: "ebay" is the wrapped shape's form; the flat shape needs the upper-case form with a region, e.g. EBAY_US`,
    ]);
    // The old meaning (the errors printed) is now --show-errors: said once, since --show-errors was not given.
    expect(beforeNextStep(result.stderr).split('\n')).toEqual([
      'notice: --max-errors 2 stops validating after 2 invalid rows (the rest are not validated), as it stops a publish; the errors printed are limited by --show-errors (now 50)',
      '7 rows: 1 valid, 2 invalid, 4 not validated',
      'stopped after 2 invalid rows (--max-errors); 4 rows not validated',
    ]);
    const rows = readFileSync(report, 'utf8').trim().split('\n').slice(1);
    expect(rows).toHaveLength(7);
    expect(rows.filter((row) => row.includes(',not_attempted,'))).toHaveLength(4);
    const json = JSON.parse((await runCli(['validate', ERRORS, '--max-errors', '2', '--show-errors', '1', '--json'])).stdout) as JsonResult & { not_validated: number; verdict: { exit_code: number; why: string } };
    expect(json).toMatchObject({ rows: 7, valid: 1, invalid: 2, not_validated: 4, errors_not_shown: 1 });
    expect(json.verdict).toEqual({ exit_code: 1, why: 'the validation stopped once 2 rows were invalid, the most it was allowed; 1 row valid, 2 invalid, 4 not validated' });
  });

  it('--max-errors all keeps its old meaning (no stop, every error printed) unless --show-errors says otherwise; 0 is refused with the way to print none', async () => {
    const all = await runCli(['validate', ERRORS, '--max-errors', 'all', '--show-errors', '1']);
    expect(all.stdout.trim().split('\n')).toHaveLength(2);
    expect(beforeNextStep(all.stderr)).toBe('7 rows: 2 valid, 5 invalid');
    expect(all.code).toBe(1);
    const zero = await runCli(['validate', ERRORS, '--max-errors', '0']);
    expect(zero.stderr).toContain('(--show-errors 0 prints no error)');
    expect(zero.code).toBe(2);
  });

  it('--json prints one object with the counts and the errors', async () => {
    const result = await runCli(['validate', ERRORS, '--json']);
    const json = JSON.parse(result.stdout) as JsonResult;
    expect(json).toMatchObject({ rows: 7, input_rows: 7, valid: 2, invalid: 5, errors_not_shown: 0 });
    expect(json.errors).toHaveLength(5);
    expect(json.errors[0]).toEqual({ source: ERRORS, line: 3, marketplace: 'EBAY_US', field: 'images_source[1]', message: 'not an absolute http(s) URL: "images/mug-sand-2.jpg" (a path: give the address it is under with --image-base-url or in the profile)' });
    expect(result.code).toBe(1);
  });

  it('--json gives a JSON source record index as record, with line null', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.json');
    const rows = JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures/catalog.json'), 'utf8')) as Array<Record<string, unknown>>;
    rows[1]!.images_source = ['not a url'];
    writeFileSync(file, JSON.stringify(rows.slice(0, 3)));
    const result = await runCli(['validate', file, '--json', '--show-errors', '0']);
    const json = JSON.parse(result.stdout) as JsonResult;
    expect(json).toMatchObject({ rows: 3, valid: 2, invalid: 1, errors: [], errors_not_shown: 1 });
    const full = JSON.parse((await runCli(['validate', file, '--json'])).stdout) as JsonResult;
    expect(full.errors).toEqual([{ source: file, line: null, record: 2, marketplace: 'EBAY_US', field: 'images_source[0]', message: 'not an absolute http(s) URL: "not a url" (a path: give the address it is under with --image-base-url or in the profile)' }]);
  });
});

describe.concurrent('listings validate: several sources, one stops the run', () => {
  it.each([
    ['an unclosed quote in the middle source', 'mb.csv', 'sku,overrides.n\nM3,"open\nM4,x\n', 'about 1 row (14 bytes) not read: a quoted value was never closed (mb.csv); not opened: mc.csv'],
    ['an empty middle source', 'emp.csv', '', 'emp.csv not read: the source could not be read; not opened: mc.csv'],
  ])('%s: it and the source after it are named as not read, in --json and the report', async (_name, middle, text, told) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ma.csv'), 'sku\nM1\nM2\n');
    writeFileSync(join(dir, middle), text);
    writeFileSync(join(dir, 'mc.csv'), 'sku\nM5\nM6\n');
    const result = await runCli(['validate', 'ma.csv', middle, 'mc.csv', ...POLICIES, '--json', '--report', 'r.csv'], { cwd: dir, env: { LISTINGS_MARKETPLACE: 'EBAY_US' } });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain(`stopped: ${told}\n`);
    expect((JSON.parse(result.stdout) as { unread: { sources_not_read: string[] } }).unread.sources_not_read).toEqual([middle, 'mc.csv']);
    const notRead = readFileSync(join(dir, 'r.csv'), 'utf8').trim().split('\n').filter((line) => line.includes(',not_read,'));
    expect(notRead.map((line) => line.split(',')[0])).toEqual([middle, 'mc.csv']);
  });
});

describe.concurrent('listings validate --out', () => {
  it('writes the request body of each valid row, one JSON per line', async () => {
    const dir = tempDir();
    const out = join(dir, 'requests.ndjson');
    const result = await runCli(['validate', ERRORS, '--out', out]);
    expect(result.code).toBe(1);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((body) => body.sku)).toEqual(['MUG-001', 'PLT-040']);
    expect(lines[0]).toEqual({
      images_source: ['https://images.example.com/products/mug-blue-1.jpg', 'https://images.example.com/products/mug-blue-2.jpg'],
      sku: 'MUG-001',
      marketplace: 'EBAY_US',
      merchant_location_key: 'warehouse-berlin-1',
      fulfillment_policy_id: 'FULFILL-STANDARD',
      payment_policy_id: 'PAY-IMMEDIATE',
      return_policy_id: 'RETURNS-30D',
      overrides: { condition: 'NEW' },
    });
  });

  it('writes the wrapped shape when asked, with the marketplace converted', async () => {
    const dir = tempDir();
    const out = join(dir, 'wrapped.ndjson');
    const result = await runCli(['validate', 'fixtures/catalog.ndjson', '--shape', 'wrapped', '--out', out]);
    expect(result.code).toBe(0);
    const first = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!) as unknown;
    expect(first).toEqual({ marketplace: 'ebay', payload: { sku: 'MUG-001', title: 'Stoneware Mug, Blue' } });
    // The images, the location key and the overrides the rows give have no place in that request: said once.
    expect(result.stderr).toContain('notice: fixtures/catalog.ndjson: images_source, merchant_location_key, fulfillment_policy_id, payment_policy_id, return_policy_id, overrides are given but not sent: the wrapped request has no such fields\n');
    expect(result.stderr.match(/given but not sent/g)).toHaveLength(1);
  });

  it('sends a quote inside an unquoted TSV cell as written (12" pizza pan), chosen by the extension or by sniffing the tab', async () => {
    const dir = tempDir();
    const text = 'sku\ttitle\nPAN-12\t12" pizza pan\nPLT-5\t"5"" plate\twith a tab"\nBAD-1\t"closed" early\n';
    for (const name of ['feed.tsv', 'feed.csv']) {
      const file = join(dir, name);
      const out = join(dir, `${name}.ndjson`);
      writeFileSync(file, text);
      const result = await runCli(['validate', file, '--shape', 'wrapped', '--marketplace', 'ebay', '--out', out]);
      expect(result.stdout.trim().split('\n')).toEqual([`${file}:4: a quote inside the quoted value (column "title") must be doubled ("")`]);
      expect(beforeNextStep(result.stderr)).toBe('3 rows: 2 valid, 1 invalid');
      expect(result.code).toBe(1);
      const bodies = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as unknown);
      expect(bodies).toEqual([
        { marketplace: 'ebay', payload: { sku: 'PAN-12', title: '12" pizza pan' } },
        { marketplace: 'ebay', payload: { sku: 'PLT-5', title: '5" plate\twith a tab' } },
      ]);
    }
  });

  it('the flat shape tells no field as not sent: it has no title, which the service derives', async () => {
    const result = await runCli(['validate', 'fixtures/catalog.ndjson']);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('not sent');
  });

  it('fails with exit 2 before reading when the file cannot be written', async () => {
    // A missing folder is made, as for a report; a file where the folder should be cannot be.
    const result = await runCli(['validate', 'fixtures/catalog.csv', '--out', join(REPO_ROOT, 'package.json', 'x.ndjson')]);
    expect(result.stderr).toMatch(/--out .*x\.ndjson: cannot write it \(ENOTDIR\)/);
    expect(result.code).toBe(2);
  });
});

describe.concurrent('listings validate: presets', () => {
  it('--preset shopify: one listing per variant, image rows counted in', async () => {
    const dir = tempDir();
    const out = join(dir, 'shopify.ndjson');
    const result = await runCli(['validate', 'fixtures/shopify-export.csv', '--preset', 'shopify', '--marketplace', 'EBAY_US', ...POLICIES, '--out', out]);
    expect(beforeNextStep(result.stderr)).toBe('9 input rows, 6 listings: 6 valid, 0 invalid');
    expect(result.code).toBe(0);
    const bodies = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { sku: string; images_source?: string[]; overrides?: { condition?: string } });
    expect(bodies.map((b) => b.sku)).toEqual(['APR-001', 'TOTE-NAT', 'TOTE-BLK', 'ceramic-planter-small-sage', 'ceramic-planter-large-sage', 'vintage-enamel-pin']);
    expect(bodies[0]!.images_source).toHaveLength(3);
    expect(bodies[2]!.images_source![0]).toMatch(/tote-black\.jpg$/);
    expect(bodies[5]!.overrides).toEqual({ condition: 'USED' });
  });

  it('--preset woocommerce: simple products and variations; a grouped product is skipped, not an error', async () => {
    const result = await runCli(['validate', 'fixtures/woocommerce-export.csv', '--preset', 'woocommerce', '--marketplace', 'EBAY_US', ...POLICIES, '--json']);
    const json = JSON.parse(result.stdout) as JsonResult;
    expect(json).toMatchObject({ rows: 9, input_rows: 10, valid: 8, invalid: 0, skipped: 1 });
    expect(json.errors).toEqual([]);
    expect(result.code).toBe(0);
    const text = await runCli(['validate', 'fixtures/woocommerce-export.csv', '--preset', 'woocommerce', '--marketplace', 'EBAY_US', ...POLICIES]);
    expect(text.stderr).toContain('8 valid, 0 invalid, 1 skipped (not listings)');
  });
});

describe.concurrent('listings validate: usage and source errors', () => {
  it('a header without the columns a listing needs is a usage error (exit 2) even with no rows after it', async () => {
    const file = join(tempDir(), 'wrong-header.csv');
    writeFileSync(file, 'qux,quux,quuz');
    const result = await runCli(['validate', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('wrong-header.csv has no sku column');
    expect(result.stderr).toContain('"qux", "quux", "quuz"');
  });

  it('a missing file exits 4, naming it', async () => {
    const result = await runCli(['validate', 'fixtures/no-such-catalog.csv']);
    expect(result.stderr).toContain('fixtures/no-such-catalog.csv');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(4);
  });

  // Before: the records under the second key were never read nor reported, and the run said "1 row: 1 valid".
  it('a key of --json-path given twice exits 4 after the rows before it, naming the key, with no stack trace', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'd.json'), '{"products":[{"sku":"P1"}],"product\\u0073":[{"sku":"P2"}]}');
    const result = await runCli(['validate', 'd.json', '--json-path', 'products', '--marketplace', 'EBAY_US', ...POLICIES], { cwd: dir });
    expect(result.stderr).toContain('1 row: 1 valid, 0 invalid');
    expect(result.stderr).toContain('error d.json#2: not read to its end: the top-level object holds the key "products" twice, so the records under one of them would be lost');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(4);
  });

  it('an unknown --map target exits 2 before reading, with a did-you-mean', async () => {
    const result = await runCli(['validate', 'fixtures/no-such-catalog.csv', '--map', 'titel=Name']);
    expect(result.stderr).toContain('"titel" is not a listing field');
    expect(result.stderr).toContain('did you mean title?');
    expect(result.code).toBe(2);
  });

  it('a mapped column missing from the header is one clear error, exit 2', async () => {
    const result = await runCli(['validate', 'fixtures/catalog.csv', '--map', 'title=Product Name']);
    expect(result.stderr).toContain('--map title=Product Name: fixtures/catalog.csv has no column "Product Name"');
    expect(result.stdout).toBe('');
    expect(result.code).toBe(2);
  });

  it('--mapping reads renames from a file', async () => {
    const dir = tempDir();
    const mapping = join(dir, 'mapping.json');
    writeFileSync(mapping, JSON.stringify({ sku: 'Variant SKU', images_source: 'Image Src' }));
    const csv = join(dir, 'shop.csv');
    writeFileSync(csv, 'Variant SKU,Image Src,marketplace\nA-1,https://x.example/a.jpg|https://x.example/b.jpg,EBAY_US\n');
    const result = await runCli(['validate', csv, '--mapping', mapping, '--saved-defaults', '--json']);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 1, valid: 1, invalid: 0 });
    expect(result.code).toBe(0);
  });

  it('--preset with --map is a usage error', async () => {
    const result = await runCli(['validate', 'fixtures/shopify-export.csv', '--preset', 'shopify', '--map', 'sku=Handle']);
    expect(result.stderr).toContain('cannot be combined with --map');
    expect(result.code).toBe(2);
  });
});

describe('validate --quiet and --report (as publish has them)', () => {
  it('--quiet prints no row line, only the summary; --report writes every row as validated, invalid or skipped', async () => {
    const dir = tempDir('validate-report-');
    const [csv, json] = [join(dir, 'run.csv'), join(dir, 'run.json')];
    const result = await runCli(['validate', ERRORS, '--marketplace', 'EBAY_US', ...POLICIES, '--quiet', '--report', csv, '--report', json], { cwd: REPO_ROOT });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/invalid/);
    const rows = readFileSync(csv, 'utf8').trim().split('\n').slice(1);
    const summary = JSON.parse(readFileSync(json, 'utf8')) as { summary: { rows: number; invalid: number; validated: number } };
    expect(rows).toHaveLength(summary.summary.rows);
    expect(summary.summary.invalid).toBeGreaterThan(0);
    expect(rows.filter((row) => row.includes(',invalid,'))).toHaveLength(summary.summary.invalid);
  });
});
