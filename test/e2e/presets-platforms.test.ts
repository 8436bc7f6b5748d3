import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { readCsvReport } from '../helpers/publish.js';

const MAGENTO = join(REPO_ROOT, 'fixtures', 'magento-export.csv');
const PRESTASHOP = join(REPO_ROOT, 'fixtures', 'prestashop-export.csv');
const BASE = 'https://shop.example.com/media/catalog/product';
const LISTING = ['--marketplace', 'EBAY_US', '--saved-defaults'];

interface ValidateJson {
  rows: number;
  valid: number;
  invalid: number;
  skipped: number;
  errors: Array<{ source: string; line: number; field: string; message: string }>;
}

interface Body {
  sku: string;
  images_source?: string[];
  overrides?: { condition?: string };
}

/** `validate ... --out FILE` in a fresh folder: its stderr, and the request bodies it would send. */
async function sentBodies(args: string[]): Promise<{ stderr: string; bodies: Body[] }> {
  const dir = tempDir();
  const out = join(dir, 'requests.ndjson');
  const result = await runCli(['validate', ...args, '--out', out, ...LISTING], { cwd: dir });
  expect(result.code, result.stderr).toBe(0);
  return { stderr: result.stderr, bodies: readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Body) };
}

/** The report's rows by line, each line once. */
function byLine(report: string): Map<string, Record<string, string>> {
  const rows = readCsvReport(report);
  const lines = new Map(rows.map((row) => [row.line!, row]));
  expect(lines.size).toBe(rows.length);
  return lines;
}

describe('exports of Magento 2 and PrestaShop, through the built binary', () => {
  it('magento: publish --sandbox --preset auto with --image-base-url lists the 4 products and skips the 4 other rows, each once with its reason', async () => {
    const dir = tempDir();
    const report = join(dir, 'report.csv');
    const result = await runCli(['publish', MAGENTO, '--preset', 'auto', '--image-base-url', BASE, '--sandbox', '--json', '--report', report, ...LISTING], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`notice: ${MAGENTO}: read as a Magento 2 catalog product export (preset magento, recognised by its header)`);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 8, published: 4, skipped: 4, invalid: 0, failed: 0 });
    const lines = byLine(report);
    expect([...lines.values()].map((row) => [row.line, row.sku, row.outcome, row.reason])).toEqual([
      ['2', 'LB-TOTE-NAT', 'published', ''],
      ['6', 'LB-TOTE-NAT', 'skipped', 'a store view\'s values (store_view_code "de"); the product is listed from its default row'],
      ['7', 'CM-MUG-S', 'published', ''],
      ['8', 'CM-MUG-L', 'published', ''],
      ['9', 'CM-MUG', 'skipped', 'a configurable product is not a listing itself; its simple products are listed from their own rows'],
      ['10', 'WC-CANDLE-OLD', 'skipped', 'disabled in Magento (product_online "0")'],
      ['11', 'GF-CARD-25', 'published', ''],
      ['12', 'LB-SET', 'skipped', 'a bundle product is not a listing itself; the products it bundles are listed from their own rows'],
    ]);
  });

  it('magento: validate --out sends the images under the base URL, additional images split; LISTINGS_IMAGE_BASE_URL and the profile key do the same', async () => {
    const { bodies } = await sentBodies([MAGENTO, '--preset', 'magento', '--image-base-url', `${BASE}/`]);
    expect(bodies.map((body) => [body.sku, body.images_source])).toEqual([
      ['LB-TOTE-NAT', [`${BASE}/l/b/lb-tote-nat-front.jpg`, `${BASE}/l/b/lb-tote-nat-back.jpg`, `${BASE}/l/b/lb-tote-nat-detail.jpg`]],
      ['CM-MUG-S', [`${BASE}/c/m/cm-mug-s.jpg`]],
      ['CM-MUG-L', [`${BASE}/c/m/cm-mug-l.jpg`, `${BASE}/c/m/cm-mug-l-side.jpg`]],
      ['GF-CARD-25', ['https://cdn.example.com/media/gift-card-25.png']],
    ]);
    const dir = tempDir();
    const env = await runCli(['validate', MAGENTO, '--preset', 'magento', '--json', ...LISTING], { cwd: dir, env: { LISTINGS_IMAGE_BASE_URL: BASE } });
    expect(env.code, env.stderr).toBe(0);
    const config = join(dir, 'config');
    expect((await runCli(['config', 'set', 'image_base_url', BASE], { cwd: dir, env: { LISTINGS_CONFIG_DIR: config } })).code).toBe(0);
    const profile = await runCli(['validate', MAGENTO, '--preset', 'magento', '--json', ...LISTING], { cwd: dir, env: { LISTINGS_CONFIG_DIR: config } });
    expect(profile.code, profile.stderr).toBe(0);
    expect(JSON.parse(profile.stdout)).toMatchObject({ rows: 8, valid: 4, skipped: 4, invalid: 0 });
  });

  it('magento: without the base URL each relative image is a located row error (file, line, field) saying how to give it', async () => {
    const result = await runCli(['validate', MAGENTO, '--preset', 'magento', '--json', '--max-errors', 'all', ...LISTING]);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as ValidateJson;
    expect(json).toMatchObject({ rows: 8, valid: 1, invalid: 3, skipped: 4 });
    expect(json.errors[0]).toMatchObject({ source: MAGENTO, line: 2, field: 'images_source[0]', message: 'not an absolute http(s) URL: "/l/b/lb-tote-nat-front.jpg" (a path: give the address it is under with --image-base-url or in the profile)' });
    expect(json.errors.map((e) => `${e.line} ${e.field}`)).toEqual(['2 images_source[0]', '2 images_source[1]', '2 images_source[2]', '7 images_source[0]', '8 images_source[0]', '8 images_source[1]']);
  });

  it('--image-base-url that is not an http(s) address, or has a query, is refused before reading, naming the flag (exit 2)', async () => {
    const cases: Array<[string, string]> = [
      ['shop.example.com/media', 'error image_base_url from --image-base-url: must be an absolute URL'],
      ['https://shop.example.com/media?v=1', 'error image_base_url from --image-base-url: must not have a query (?) or a fragment (#)'],
    ];
    for (const [bad, message] of cases) {
      const result = await runCli(['validate', MAGENTO, '--preset', 'magento', '--image-base-url', bad, ...LISTING]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });

  it('prestashop: publish --sandbox of the `;` export lists 3 products and skips the disabled one, with the reason', async () => {
    const dir = tempDir();
    const report = join(dir, 'report.csv');
    const result = await runCli(['publish', PRESTASHOP, '--preset', 'prestashop', '--sandbox', '--json', '--report', report, ...LISTING], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 4, published: 3, skipped: 1, invalid: 0, failed: 0 });
    expect([...byLine(report).values()].map((row) => [row.line, row.sku, row.outcome, row.reason])).toEqual([
      ['2', 'demo_1', 'published', ''],
      ['4', 'demo_12', 'published', ''],
      ['5', 'demo_8', 'skipped', 'disabled in PrestaShop (Active (0/1) "0")'],
      ['6', 'demo_6', 'published', ''],
    ]);
  });

  it('woocommerce: publish --sandbox skips a draft product and a disabled variation with why, and sends only what the shop sells', async () => {
    const dir = tempDir();
    const export_ = join(dir, 'wc.csv');
    const report = join(dir, 'report.csv');
    writeFileSync(
      export_,
      'ID,Type,SKU,Name,Published,Images,Parent\n' +
        '1,simple,LIVE,Live,1,https://i.example.com/a.jpg,\n' +
        '2,simple,DRAFT,Draft,-1,https://i.example.com/b.jpg,\n' +
        '3,variable,HOOD,Hoodie,1,https://i.example.com/h.jpg,\n' +
        '4,variation,HOOD-OFF,,0,,HOOD\n' +
        '5,variation,HOOD-ON,,1,,id:3\n',
    );
    const result = await runCli(['publish', export_, '--preset', 'woocommerce', '--sandbox', '--json', '--report', report, ...LISTING], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 4, published: 2, skipped: 2, invalid: 0, failed: 0, requests: 2 });
    expect([...byLine(report).values()].map((row) => [row.line, row.sku, row.outcome, row.reason])).toEqual([
      ['2', 'LIVE', 'published', ''],
      ['3', 'DRAFT', 'skipped', 'the product is a draft in WooCommerce (Published "-1"): only published products are listed'],
      ['5', 'HOOD-OFF', 'skipped', 'the variation is private or disabled in WooCommerce (Published "0"): only published products are listed'],
      ['6', 'HOOD-ON', 'published', ''],
    ]);
  });

  it('prestashop: without a preset the missing sku column points at it; validate --preset auto says which preset it chose; the images and conditions are sent as the export gives them', async () => {
    const plain = await runCli(['validate', PRESTASHOP, ...LISTING]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('this looks like a PrestaShop export: try --preset prestashop');
    const { stderr, bodies } = await sentBodies([PRESTASHOP, '--preset', 'auto']);
    expect(stderr).toContain(`notice: ${PRESTASHOP}: read as a PrestaShop product export (preset prestashop, recognised by its header)`);
    expect(bodies.map((body) => [body.sku, body.images_source?.length, body.overrides?.condition])).toEqual([
      ['demo_1', 2, 'NEW'],
      ['demo_12', 1, 'USED'],
      ['demo_6', 3, 'REFURBISHED'],
    ]);
  });

  it('--preset auto on a plain catalog reads it with the generic mapping and says so; on Shopify and WooCommerce exports it picks their preset', async () => {
    const plain = await runCli(['validate', join(REPO_ROOT, 'fixtures', 'catalog.csv'), '--preset', 'auto']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(/catalog\.csv: read with the generic mapping, no preset \(its header is no known export's; the presets: shopify, woocommerce, magento, prestashop\)/);
    for (const [file, label] of [['shopify-export.csv', 'a Shopify product export (preset shopify'], ['woocommerce-export.csv', 'a WooCommerce product export (preset woocommerce']] as const) {
      const result = await runCli(['validate', join(REPO_ROOT, 'fixtures', file), '--preset', 'auto', ...LISTING]);
      expect(result.stderr).toContain(`read as ${label}`);
      expect(result.code, result.stderr).toBe(0);
    }
  });
});
