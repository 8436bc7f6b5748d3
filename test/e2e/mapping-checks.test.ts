import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 11, item 5: mapping mistakes are told, not passed over in silence.

const IMAGE = 'https://images.example.com/a.jpg';
const SETTINGS = ['--saved-defaults', '--marketplace', 'EBAY_US'];

function writeFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A CSV of `rows` rows under `header`, each row made by `row(i)`. */
function csv(dir: string, header: string, rows: number, row: (i: number) => string): string {
  const lines = [header];
  for (let i = 0; i < rows; i++) lines.push(row(i));
  return writeFile(dir, 'catalog.csv', `${lines.join('\n')}\n`);
}

function notices(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('notice:'));
}

describe.concurrent('listings: mapping mistakes are told (issue 11, item 5)', () => {
  it('a renamed column missing from the header is exit 2 naming the flag, the column and the closest name, before anything is sent or written', async () => {
    const dir = tempDir();
    const catalog = csv(dir, 'Variant SKU,Title,images_source', 3, (i) => `V-${i},Mug ${i},${IMAGE}`);
    const mapping = writeFile(dir, 'shop.json', JSON.stringify({ sku: 'Variant Sku' }));
    const result = await runCli(['publish', catalog, '--sandbox', '--json', '--mapping', mapping, '--report', join(dir, 'r.csv'), ...SETTINGS], { cwd: dir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`error --mapping ${mapping} (sku): ${catalog} has no column "Variant Sku"`);
    expect(result.stderr).toContain('hint  did you mean "Variant SKU"?');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
    // Raised when the catalog is opened: no journal was started, no report written.
    const state = join(dir, '.listings');
    expect(existsSync(state) ? readdirSync(state) : []).toEqual([]);
    expect(existsSync(join(dir, 'r.csv'))).toBe(false);
  });

  it('header names match ignoring case and spaces ("SKU ", "Title"), with one notice', async () => {
    const dir = tempDir();
    const catalog = csv(dir, 'SKU ,Title,Images_Source', 4, (i) => `S-${i},Mug ${i},${IMAGE}`);
    const published = await runCli(['publish', catalog, '--sandbox', '--json', '--no-journal', ...SETTINGS], { cwd: dir });
    expect(published.code, published.stderr).toBe(0);
    expect(JSON.parse(published.stdout)).toMatchObject({ rows: 4, published: 4, invalid: 0 });
    const validated = await runCli(['validate', catalog, '--shape', 'wrapped', '--json', ...SETTINGS], { cwd: dir });
    expect(validated.code, validated.stderr).toBe(0);
    expect(JSON.parse(validated.stdout)).toMatchObject({ rows: 4, valid: 4 });
    expect(notices(validated.stderr)).toEqual([
      `notice: ${catalog}: read "SKU " as sku, "Title" as title, "Images_Source" as images_source (header names matched ignoring case and spaces)`,
      // The wrapped request carries sku and title only: the images read are said not to be sent.
      `notice: ${catalog}: images_source is given but not sent: the wrapped request has no such field`,
    ]);
  });

  it('columns no field reads are listed once, in one short line, however many rows', async () => {
    const dir = tempDir();
    const extra = ['Colour', 'Weight', 'Vendor', 'Tags', 'Barcode', 'Cost', 'Notes', 'Origin'];
    const catalog = csv(dir, ['sku', 'images_source', ...extra].join(','), 200, (i) => [`S-${i}`, IMAGE, ...extra.map(() => 'x')].join(','));
    const result = await runCli(['validate', catalog, ...SETTINGS], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(notices(result.stderr)).toEqual([`notice: ${catalog}: 8 columns not read by any listing field: "Colour", "Weight", "Vendor", "Tags", "Barcode", "Cost" and 2 more`]);
  });

  it('an optional field that no row gives is one notice at the end; --json stdout stays pure JSON', async () => {
    const dir = tempDir();
    const catalog = csv(dir, 'sku,Image URL', 194, (i) => `S-${i},`);
    const result = await runCli(['validate', catalog, '--json', '--map', 'images_source=Image URL', ...SETTINGS], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 194, valid: 194 });
    expect(notices(result.stderr)).toEqual([`notice: ${catalog}: 0 of 194 rows have images_source (column "Image URL" is empty in every row)`]);
  });

  it('publish tells the same notices once each on stderr, with --json on stdout untouched', async () => {
    const dir = tempDir();
    const catalog = csv(dir, 'Sku,Colour,Image', 30, (i) => `P-${i},red,${IMAGE}`);
    const result = await runCli(['publish', catalog, '--sandbox', '--json', '--no-journal', ...SETTINGS], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 30, published: 30 });
    expect(notices(result.stderr)).toEqual([
      // The "Image" column is proposed for images_source, with the command that maps it (issue 23, item 8).
      `notice: ${catalog}: columns that look like listing fields under other names: "Image" for images_source`,
      `notice: ${catalog}: read "Sku" as sku (header names matched ignoring case and spaces)`,
      `notice: ${catalog}: 2 columns not read by any listing field: "Colour", "Image"`,
      `notice: ${catalog}: 0 of 30 rows have images_source (the header has no column "images_source"); name its column with --map images_source=COLUMN`,
    ]);
  });

  it('a preset reads its own columns: no "not read" notice for a Shopify export', async () => {
    const result = await runCli(['validate', 'fixtures/shopify-export.csv', '--preset', 'shopify', ...SETTINGS]);
    expect(result.stderr).not.toContain('not read');
    expect(notices(result.stderr)).toEqual([]);
  });
});

describe.concurrent('listings: images from a list of objects (a commercetools JSON export), mapped with LIST[].KEY', () => {
  const products = [
    { key: 'CT-1', images: [{ url: 'https://images.example.com/1/a.jpg', dimensions: { w: 800, h: 600 } }, { url: 'https://images.example.com/1/b.jpg' }] },
    { key: 'CT-2', images: [{ url: 'https://images.example.com/2/a.jpg' }, { label: 'no url here' }] },
    { key: 'CT-3', images: { url: 'https://images.example.com/3/a.jpg' } },
  ];

  it('validate --out sends the url of each image, and names the record and the item whose url is missing or the list that is not one', async () => {
    const dir = tempDir();
    const catalog = writeFile(dir, 'products.json', JSON.stringify(products));
    const out = join(dir, 'requests.ndjson');
    const result = await runCli(['validate', catalog, '--map', 'sku=key', '--map', 'images_source=images[].url', '--out', out, ...SETTINGS], { cwd: dir });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('3 rows: 1 valid, 2 invalid');
    expect(result.stdout).toContain(`${catalog}#2: [EBAY_US] images_source[1]: read from "images[].url", but item 1 of "images" has no "url"`);
    expect(result.stdout).toContain(`${catalog}#3: [EBAY_US] images_source: read from "images[].url", but "images" is an object, not a list`);
    expect(notices(result.stderr)).toEqual([]);
    const sent = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { sku: string; images_source: string[] });
    expect(sent.map(({ sku, images_source }) => [sku, images_source])).toEqual([['CT-1', ['https://images.example.com/1/a.jpg', 'https://images.example.com/1/b.jpg']]]);
  });

  it('publish --sandbox publishes the records whose every image has a url, and reports the others invalid once each', async () => {
    const dir = tempDir();
    const catalog = writeFile(dir, 'products.ndjson', `${products.map((product) => JSON.stringify(product)).join('\n')}\n`);
    const result = await runCli(['publish', catalog, '--sandbox', '--no-journal', '--json', '--map', 'sku=key', '--map', 'images_source=images[].url', ...SETTINGS], { cwd: dir });
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 3, published: 1, invalid: 2 });
  });
});
