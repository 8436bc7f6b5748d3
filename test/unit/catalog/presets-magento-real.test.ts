import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCatalog } from '../../../src/catalog/open-catalog.js';
import { createPreparer } from '../../../src/prepare/preparer.js';
import type { CatalogNotice } from '../../../src/catalog/types.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { collect } from '../../helpers/sources-collect.js';

// Magento's own Luma sample data in its product import/export layout (../shared/testdata/README.md); never copied
// into the repository.
const FILE = join(REPO_ROOT, '..', 'shared', 'testdata', 'catalogs', 'magento2-sample-data', 'ConfigurableSampleData__products.csv');
const present = existsSync(FILE);
const title = present ? 'a real Magento 2 export (Luma sample data)' : `a real Magento 2 export (skipped: ${FILE} is absent)`;

describe.skipIf(!present)(title, () => {
  it('is recognised by --preset auto; 1,994 rows: 1,847 simple products listed, 147 configurable parents skipped with the reason', async () => {
    const notices: CatalogNotice[] = [];
    const catalog = await openCatalog(FILE, { preset: 'auto', onNotice: (notice) => notices.push(notice) });
    const drafts = await collect(catalog.drafts);
    expect(notices.find((n) => n.kind === 'preset')).toMatchObject({ preset: 'magento' });
    expect(drafts).toHaveLength(1994);
    const skipped = drafts.filter((d) => d.skip !== undefined);
    expect(skipped).toHaveLength(147);
    expect(new Set(skipped.map((d) => d.skip))).toEqual(new Set(['a configurable product is not a listing itself; its simple products are listed from their own rows']));
    const hoodie = drafts.find((d) => d.values.sku === 'MH01-XS-Gray')!;
    expect(hoodie.values).toEqual({ sku: 'MH01-XS-Gray', title: 'Chaz Kangeroo Hoodie-XS-Gray', images_source: ['/m/h/mh01-gray_main.jpg', '/m/h/mh01-gray_alt1.jpg', '/m/h/mh01-gray_back.jpg'] });
    // The multi-line HTML descriptions do not shift the lines.
    expect(drafts[0]!.location.line).toBe(2);
    expect(drafts.map((d) => d.location.line)).toEqual([...drafts.map((d) => d.location.line!)].sort((a, b) => a - b));
  });

  it('with the image base URL every listing is valid; without it a listing is refused at its first image, located', async () => {
    const drafts = await collect((await openCatalog(FILE, { preset: 'magento' })).drafts);
    const listed = drafts.filter((d) => d.skip === undefined);
    const base = createPreparer({ shape: 'flat', saved_defaults: true, marketplace: 'EBAY_US', image_base_url: 'https://luma.example.com/media/catalog/product' });
    const rows = listed.map(base);
    expect(rows.filter((row) => row.kind !== 'ready')).toEqual([]);
    expect((rows[0] as { request: { images_source: string[] } }).request.images_source[0]).toBe('https://luma.example.com/media/catalog/product/m/h/mh01-black_main.jpg');
    const bare = createPreparer({ shape: 'flat', saved_defaults: true, marketplace: 'EBAY_US' })(listed[0]!);
    expect(bare).toMatchObject({ kind: 'invalid', location: { line: 2 }, issues: [{ path: 'images_source[0]', message: expect.stringContaining('"/m/h/mh01-black_main.jpg" (a path') as string }] });
  });
});
