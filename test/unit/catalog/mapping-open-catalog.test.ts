import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCatalog, openCatalogs } from '../../../src/catalog/open-catalog.js';
import { UsageError, SourceError } from '../../../src/errors.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { collect } from '../../helpers/sources-collect.js';

const fixture = (name: string) => join(REPO_ROOT, 'fixtures', name);

describe('openCatalog', () => {
  it('maps each fixture format to the same drafts', async () => {
    const [csv, json, ndjson, gz] = await Promise.all(['catalog.csv', 'catalog.json', 'catalog.ndjson', 'catalog.csv.gz'].map(async (name) => collect((await openCatalog(fixture(name))).drafts)));
    expect(csv).toHaveLength(20);
    for (const other of [json, ndjson, gz]) expect(other!.map((d) => d.values)).toEqual(csv!.map((d) => d.values));
    expect(csv![0]!.values).toEqual({
      sku: 'MUG-001',
      title: 'Stoneware Mug, Blue',
      marketplace: 'EBAY_US',
      images_source: ['https://images.example.com/products/mug-blue-1.jpg', 'https://images.example.com/products/mug-blue-2.jpg', 'https://images.example.com/products/mug-blue-3.jpg'],
      merchant_location_key: 'warehouse-berlin-1',
      fulfillment_policy_id: 'FULFILL-STANDARD',
      payment_policy_id: 'PAY-IMMEDIATE',
      return_policy_id: 'RETURNS-30D',
      overrides: { condition: 'USED_EXCELLENT' },
    });
    expect(csv![0]!.location).toEqual({ source: fixture('catalog.csv'), line: 2 });
  });

  it('refuses --map with --preset, and an unknown target, before opening the source', async () => {
    await expect(openCatalog('/no/such/file.csv', { preset: 'shopify', map: { sku: 'Handle' } })).rejects.toThrow(UsageError);
    await expect(openCatalog('/no/such/file.csv', { map: { skew: 'SKU' } })).rejects.toThrow(/"skew" is not a listing field/);
    await expect(openCatalog('/no/such/file.csv')).rejects.toThrow(SourceError);
  });
});

describe('openCatalogs', () => {
  it('reads several sources as one catalog, summing their progress', async () => {
    const catalog = await openCatalogs([fixture('catalog.csv'), fixture('catalog.ndjson')]);
    const drafts = await collect(catalog.drafts);
    expect(drafts).toHaveLength(40);
    expect(drafts[20]!.location).toEqual({ source: fixture('catalog.ndjson'), line: 1 });
    const sizes = statSync(fixture('catalog.csv')).size + statSync(fixture('catalog.ndjson')).size;
    expect(catalog.progress()).toEqual({ bytesRead: sizes, totalBytes: sizes });
  });

  it('opens the first source at once, checks later local files at once too, and opens remote ones when reached', async () => {
    await expect(openCatalogs([fixture('missing.csv'), fixture('catalog.csv')])).rejects.toThrow(SourceError);
    // A later file that is missing, or whose header the mapping cannot read, fails before a row of the first is read.
    await expect(openCatalogs([fixture('catalog.csv'), fixture('missing.csv')])).rejects.toThrow(/missing\.csv: no such file/);
    await expect(openCatalogs([fixture('catalog.json'), fixture('catalog.csv')], { map: { sku: 'sku', title: 'Name' } })).rejects.toThrow(/catalog\.csv has no column "Name"/);
    const remote = await openCatalogs([fixture('catalog.csv'), 'http://127.0.0.1:9/later.csv']);
    await expect(collect(remote.drafts)).rejects.toThrow(/later\.csv/);
    await expect(openCatalogs([])).rejects.toThrow(UsageError);
  });

  it('reads the later local files it checked as if unchecked, and tells their notices once', async () => {
    const notices: string[] = [];
    const catalog = await openCatalogs([fixture('catalog.csv'), fixture('catalog.csv.gz'), fixture('shopify-export.csv')], { preset: 'auto', onNotice: (notice) => notices.push(notice.message) });
    const drafts = await collect(catalog.drafts);
    expect(drafts).toHaveLength(46);
    expect(drafts[20]!.location).toEqual({ source: fixture('catalog.csv.gz'), line: 2 });
    expect(notices.filter((notice) => notice.includes('preset'))).toEqual([
      expect.stringContaining(`${fixture('catalog.csv')}: read with the generic mapping`),
      expect.stringContaining(`${fixture('catalog.csv.gz')}: read with the generic mapping`),
      expect.stringContaining(`${fixture('shopify-export.csv')}: read as a Shopify product export`),
    ]);
  });
});
