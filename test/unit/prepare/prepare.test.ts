import { describe, expect, it } from 'vitest';
import { createPreparer, prepareCatalog } from '../../../src/prepare/index.js';
import { isAbsoluteHttpUrl } from '../../../src/prepare/checks.js';
import { SkuRegistry } from '../../../src/prepare/sku-registry.js';
import type { Draft, DraftValues, Catalog } from '../../../src/catalog/types.js';
import type { ListingDefaults, PreparedRow } from '../../../src/prepare/types.js';

const FULL: DraftValues = {
  sku: 'A1',
  title: 'Mug',
  marketplace: 'EBAY_US',
  images_source: ['https://img.example.com/a1.jpg'],
  merchant_location_key: 'wh-1',
  fulfillment_policy_id: 'f-1',
  payment_policy_id: 'p-1',
  return_policy_id: 'r-1',
};
const FLAT: ListingDefaults = { shape: 'flat', saved_defaults: false };
let line = 1;
const draft = (values: DraftValues, extra: Partial<Draft> = {}): Draft => ({ location: { source: 'catalog.csv', line: ++line }, values, issues: [], ...extra });

/** How the CLI names settings in a row's issues (src/cli passes its flag names); the library names the setting. */
const AS_FLAGS = { name: (key: string) => `--${key.replaceAll('_', '-')}` };

function issuesOf(row: PreparedRow): string[] {
  return row.kind === 'invalid' ? row.issues.map((i) => `${i.path}: ${i.message}`) : [];
}

describe('flat shape', () => {
  it('builds the documented fields only (no title), trimmed by the schema', () => {
    const row = createPreparer(FLAT)(draft({ ...FULL, overrides: { condition: 'NEW' } }));
    expect(row).toMatchObject({
      kind: 'ready',
      sku: 'A1',
      request: {
        images_source: ['https://img.example.com/a1.jpg'],
        sku: 'A1',
        marketplace: 'EBAY_US',
        merchant_location_key: 'wh-1',
        fulfillment_policy_id: 'f-1',
        payment_policy_id: 'p-1',
        return_policy_id: 'r-1',
        overrides: { condition: 'NEW' },
      },
    });
  });

  it('row value > defaults, per field', () => {
    const prepare = createPreparer({ ...FLAT, marketplace: 'EBAY_DE', merchant_location_key: 'default-wh', fulfillment_policy_id: 'default-f', payment_policy_id: 'p', return_policy_id: 'r', condition: 'USED' });
    const row = prepare(draft({ sku: 'B', merchant_location_key: 'row-wh', overrides: { colour: 'red' } }));
    expect(row.kind === 'ready' && row.request).toEqual({
      sku: 'B',
      marketplace: 'EBAY_DE',
      merchant_location_key: 'row-wh',
      fulfillment_policy_id: 'default-f',
      payment_policy_id: 'p',
      return_policy_id: 'r',
      overrides: { colour: 'red', condition: 'USED' },
    });
    const own = prepare(draft({ sku: 'C', overrides: { condition: 'NEW' } }));
    expect(own.kind === 'ready' && own.request).toMatchObject({ overrides: { condition: 'NEW' } });
  });

  it('rule 2: without saved defaults the location key and the three policy ids are required, saying where to set them', () => {
    const row = createPreparer(FLAT, AS_FLAGS)(draft({ sku: 'A', marketplace: 'EBAY_US' }));
    expect(issuesOf(row)).toEqual([
      'merchant_location_key: is required (no saved defaults; set it in the row, with --merchant-location-key or in the profile)',
      'fulfillment_policy_id: is required (no saved defaults; set it in the row, with --fulfillment-policy-id or in the profile)',
      'payment_policy_id: is required (no saved defaults; set it in the row, with --payment-policy-id or in the profile)',
      'return_policy_id: is required (no saved defaults; set it in the row, with --return-policy-id or in the profile)',
    ]);
  });

  it('rule 1: with saved defaults they are omitted when absent', () => {
    const row = createPreparer({ ...FLAT, saved_defaults: true })(draft({ sku: 'A', marketplace: 'EBAY_US' }));
    expect(row.kind === 'ready' && row.request).toEqual({ sku: 'A', marketplace: 'EBAY_US' });
  });

  it('requires sku and marketplace', () => {
    const row = createPreparer({ ...FLAT, saved_defaults: true }, AS_FLAGS)(draft({ title: 'x' }));
    expect(issuesOf(row)).toEqual(['marketplace: is required (set it in the row, with --marketplace or in the profile)', 'sku: is required']);
  });

  it('a library caller is told the setting, never a flag it cannot pass', () => {
    const row = createPreparer(FLAT)(draft({ sku: 'A', images_source: ['img/a.jpg'] }));
    expect(issuesOf(row)).toEqual([
      'images_source[0]: not an absolute http(s) URL: "img/a.jpg" (a path: give the address it is under with image_base_url or in the profile)',
      'marketplace: is required (set it in the row, with marketplace or in the profile)',
      'merchant_location_key: is required (no saved defaults; set it in the row, with merchant_location_key or in the profile)',
      'fulfillment_policy_id: is required (no saved defaults; set it in the row, with fulfillment_policy_id or in the profile)',
      'payment_policy_id: is required (no saved defaults; set it in the row, with payment_policy_id or in the profile)',
      'return_policy_id: is required (no saved defaults; set it in the row, with return_policy_id or in the profile)',
    ]);
    expect(issuesOf(row).join('\n')).not.toContain('--');
  });

  it('image URLs must be absolute http(s)', () => {
    const row = createPreparer(FLAT, AS_FLAGS)(draft({ ...FULL, images_source: ['https://ok.example/a.jpg', 'img/b.jpg', 'ftp://x/c.jpg', 'http:/d.jpg'] }));
    expect(issuesOf(row)).toEqual([
      'images_source[1]: not an absolute http(s) URL: "img/b.jpg" (a path: give the address it is under with --image-base-url or in the profile)',
      'images_source[2]: not an absolute http(s) URL: "ftp://x/c.jpg"',
      'images_source[3]: not an absolute http(s) URL: "http:/d.jpg"',
    ]);
    expect(['https://a.b/c', 'HTTP://A.B', 'https://', '//a.b/c', 'a.b'].map(isAbsoluteHttpUrl)).toEqual([true, true, false, false, false]);
  });

  it('image_base_url: relative paths are sent under it, one slash between; absolute URLs as they are', () => {
    const prepare = createPreparer({ ...FLAT, image_base_url: 'https://shop.example.com/media/catalog/product/' });
    const images = ['/m/b/mb01-blue-0.jpg', 'm/b/mb01-back.jpg', '//cdn.example.com/x.jpg', 'https://img.example.com/a1.jpg'];
    const row = prepare(draft({ ...FULL, images_source: images }));
    expect(row).toMatchObject({
      kind: 'ready',
      request: {
        images_source: [
          'https://shop.example.com/media/catalog/product/m/b/mb01-blue-0.jpg',
          'https://shop.example.com/media/catalog/product/m/b/mb01-back.jpg',
          'https://cdn.example.com/x.jpg',
          'https://img.example.com/a1.jpg',
        ],
      },
    });
    // The draft's own list is not changed.
    expect(images[0]).toBe('/m/b/mb01-blue-0.jpg');
    const noSlash = createPreparer({ ...FLAT, image_base_url: 'http://shop.example.com/media' })(draft({ ...FULL, sku: 'A2', images_source: ['/a.jpg'] }));
    expect(noSlash).toMatchObject({ kind: 'ready', request: { images_source: ['http://shop.example.com/media/a.jpg'] } });
  });

  it('image_base_url: an image still not an absolute http(s) URL is an issue at its index; a path without a base says how to give one', () => {
    const withBase = createPreparer({ ...FLAT, image_base_url: 'https://shop.example.com/media' })(draft({ ...FULL, images_source: ['/ok.jpg', 'ftp://x/c.jpg', 'data:image/png;base64,AA'] }));
    expect(withBase).toMatchObject({ kind: 'invalid', location: { source: 'catalog.csv' } });
    expect(issuesOf(withBase)).toEqual(['images_source[1]: not an absolute http(s) URL: "ftp://x/c.jpg"', 'images_source[2]: not an absolute http(s) URL: "data:image/png;base64,AA"']);
    const without = createPreparer(FLAT, AS_FLAGS)(draft({ ...FULL, images_source: ['/m/b/mb01.jpg', 'img/b.jpg', '//cdn.example.com/x.jpg'] }));
    expect(issuesOf(without)).toEqual([
      'images_source[0]: not an absolute http(s) URL: "/m/b/mb01.jpg" (a path: give the address it is under with --image-base-url or in the profile)',
      'images_source[1]: not an absolute http(s) URL: "img/b.jpg" (a path: give the address it is under with --image-base-url or in the profile)',
      'images_source[2]: not an absolute http(s) URL: "//cdn.example.com/x.jpg" (a path: give the address it is under with --image-base-url or in the profile)',
    ]);
  });

  it('marketplace: EBAY_US kept, ebay_us converted, the wrapped form refused with an example', () => {
    const prepare = createPreparer(FLAT);
    const lower = prepare(draft({ ...FULL, sku: 'm1', marketplace: 'ebay_us' }));
    expect(lower.kind === 'ready' && lower.request).toMatchObject({ marketplace: 'EBAY_US' });
    expect(issuesOf(prepare(draft({ ...FULL, sku: 'm2', marketplace: 'ebay' })))).toEqual([
      'marketplace: "ebay" is the wrapped shape\'s form; the flat shape needs the upper-case form with a region, e.g. EBAY_US',
    ]);
    expect(issuesOf(prepare(draft({ ...FULL, sku: 'm3', marketplace: 'Not a market!' })))).toEqual(['marketplace: must be upper case with a region suffix, e.g. EBAY_US']);
  });

  it('duplicate SKUs: the later rows are invalid, pointing at the first', () => {
    const prepare = createPreparer(FLAT);
    const first = prepare({ location: { source: 'catalog.csv', line: 3 }, values: FULL, issues: [] });
    const again = prepare({ location: { source: 'catalog.csv', line: 9 }, values: FULL, issues: [] });
    const third = prepare({ location: { source: 'other.json', record: 4 }, values: FULL, issues: [] });
    expect(first.kind).toBe('ready');
    expect(issuesOf(again)).toEqual(['sku: duplicate SKU; first seen at catalog.csv:3']);
    expect(issuesOf(third)).toEqual(['sku: duplicate SKU; first seen at catalog.csv:3']);
    expect(createPreparer(FLAT)(draft(FULL)).kind).toBe('ready');
  });

  it('keeps mapping issues and passes parser errors through without checking values', () => {
    const prepare = createPreparer(FLAT);
    expect(issuesOf(prepare(draft({ ...FULL, sku: 'x1' }, { issues: [{ path: 'title', message: 'must be text, not a boolean' }] })))).toEqual(['title: must be text, not a boolean']);
    const broken = prepare(draft({}, { issues: [{ path: '(record)', message: 'unclosed quote' }], rows: 1 }));
    expect(broken).toEqual({ kind: 'invalid', location: { source: 'catalog.csv', line }, issues: [{ path: '(record)', message: 'unclosed quote' }], rows: 1 });
  });

  it('reports other schema issues with the field path', () => {
    const row = createPreparer(FLAT)(draft({ ...FULL, sku: 'o1', overrides: { condition: 7 } }));
    expect(issuesOf(row)).toEqual([expect.stringMatching(/^overrides\.condition: /)]);
  });
});

describe('wrapped shape', () => {
  const WRAPPED: ListingDefaults = { shape: 'wrapped', saved_defaults: false };

  it('builds {marketplace, payload: {sku, title}}, converting EBAY_US to ebay', () => {
    const row = createPreparer(WRAPPED)(draft(FULL));
    expect(row.kind === 'ready' && row.request).toEqual({ marketplace: 'ebay', payload: { sku: 'A1', title: 'Mug' } });
  });

  it('needs a title and names the field plainly', () => {
    expect(issuesOf(createPreparer({ ...WRAPPED, marketplace: 'EBAY' })(draft({ sku: 'A' })))).toEqual(['title: is required']);
  });
});

describe('prepareCatalog', () => {
  it('yields one prepared row per draft with its index, sharing the duplicate check', async () => {
    async function* drafts(): AsyncIterable<Draft> {
      yield draft(FULL);
      yield await Promise.resolve(draft({ ...FULL, sku: 'B2' }, { rows: 3 }));
      yield draft(FULL);
    }
    const catalog: Catalog = { name: 'c', drafts: drafts(), progress: () => ({ bytesRead: 0 }) };
    const rows: Array<[number, string, number | undefined]> = [];
    for await (const row of prepareCatalog(catalog, FLAT, 10)) rows.push([row.index, row.kind, row.rows]);
    expect(rows).toEqual([
      [10, 'ready', undefined],
      [11, 'ready', 3],
      [12, 'invalid', undefined],
    ]);
  });
});

describe('SkuRegistry', () => {
  it('is exact across hash growth, unicode, long SKUs and many sources', () => {
    const registry = new SkuRegistry();
    const n = 200_000;
    let fresh = 0;
    for (let i = 0; i < n; i++) if (registry.firstSeen(`SKU-${i}`, { source: `s${i % 3}.csv`, line: i + 2 }) === undefined) fresh++;
    expect(fresh).toBe(n);
    expect(registry.size).toBe(n);
    expect(registry.firstSeen('SKU-123457', { source: 'x', line: 1 })).toEqual({ source: 's1.csv', line: 123459 });
    expect(registry.firstSeen('SKU-1234570', { source: 'x', line: 1 })).toBeUndefined();
    expect(registry.firstSeen('ÆØÅ-1', { source: 'j.json', record: 0 })).toBeUndefined();
    expect(registry.firstSeen('ÆØÅ-1', { source: 'x', line: 1 })).toEqual({ source: 'j.json', record: 0 });
    const long = 'L'.repeat(5000);
    expect(registry.firstSeen(long, { source: 'stdin' })).toBeUndefined();
    expect(registry.firstSeen(long, { source: 'x', line: 1 })).toEqual({ source: 'stdin' });
    expect(registry.firstSeen('', { source: 'e', line: 4_000_000_000 })).toBeUndefined();
    expect(registry.firstSeen('', { source: 'x', line: 1 })).toEqual({ source: 'e', line: 4_000_000_000 });
  });
});
