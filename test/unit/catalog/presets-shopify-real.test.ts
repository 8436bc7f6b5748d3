import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCatalog } from '../../../src/catalog/open-catalog.js';
import { createPreparer } from '../../../src/prepare/preparer.js';
import type { Draft } from '../../../src/catalog/types.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { collect } from '../../helpers/sources-collect.js';

// Shopify's own sample exports (../shared/testdata/README.md); never copied into the repository.
const DIR = join(REPO_ROOT, '..', 'shared', 'testdata', 'catalogs', 'shopify');
const present = existsSync(DIR);
const title = present ? 'real Shopify exports' : `real Shopify exports (skipped: ${DIR} is absent)`;

async function drafts(file: string): Promise<Draft[]> {
  const catalog = await openCatalog(join(DIR, file), { preset: 'shopify' });
  return collect(catalog.drafts);
}

describe.skipIf(!present)(title, () => {
  // records = CSV records after the header; listings = variant rows (the product row and each option row).
  it.each([
    ['apparel.csv', 22, 22],
    ['home-and-garden.csv', 21, 21],
    ['jewelery.csv', 41, 23],
    ['product_template_2019.csv', 3, 3],
    ['product_template_2025.csv', 17, 16],
  ])('%s: %i rows -> %i listings, every row counted once, all valid', async (file, records, listings) => {
    const out = await drafts(file);
    expect(out).toHaveLength(listings);
    expect(out.reduce((sum, draft) => sum + (draft.rows ?? 1), 0)).toBe(records);
    const prepare = createPreparer({ shape: 'flat', saved_defaults: true, marketplace: 'EBAY_US' });
    const invalid = out.map(prepare).filter((row) => row.kind === 'invalid');
    expect(invalid).toEqual([]);
    for (const draft of out) {
      expect(draft.values.title).toBeTruthy();
      expect(draft.values.images_source?.length).toBeGreaterThan(0);
    }
  });

  it('apparel: variants without Variant SKU become <Handle>-<option>; single products the Handle', async () => {
    const out = await drafts('apparel.csv');
    expect(out.slice(0, 4).map((d) => [d.location.line, d.values.sku, d.values.title])).toEqual([
      [2, 'ocean-blue-shirt', 'Ocean Blue Shirt'],
      [3, 'classic-varsity-top-small', 'Classic Varsity Top - Small'],
      [4, 'classic-varsity-top-medium', 'Classic Varsity Top - Medium'],
      [5, 'classic-varsity-top-large', 'Classic Varsity Top - Large'],
    ]);
    // Every variant of a product shows the product's images.
    expect(out[3]!.values.images_source).toEqual(['https://burst.shopifycdn.com/photos/casual-fashion-woman_925x.jpg']);
  });

  it('jewelery: extra image rows join the product; the variant image comes first', async () => {
    const out = await drafts('jewelery.csv');
    const silver = out.find((d) => d.values.title === 'Anchor Bracelet Mens - Silver')!;
    expect(silver.values.images_source).toEqual([
      'https://burst.shopifycdn.com/photos/anchor-bracelet-for-men_925x.jpg',
      'https://burst.shopifycdn.com/photos/anchor-bracelet-mens_925x.jpg',
      'https://burst.shopifycdn.com/photos/leather-anchor-bracelet-for-men_925x.jpg',
    ]);
    const origami = out.find((d) => d.values.sku === 'origami-crane-necklace')!;
    expect(origami.rows).toBe(4);
    expect(origami.values.images_source).toHaveLength(4);
    // The multi-line HTML body of a product does not shift the lines of the next ones.
    expect(out.find((d) => d.values.sku === 'choker-with-gold-pendant')!.location.line).toBe(14);
    expect(out.find((d) => d.values.title === 'Gemstone Necklace - Purple')!.location.line).toBe(36);
  });

  it('2025 template: Variant SKUs, option titles, Google Shopping conditions', async () => {
    const out = await drafts('product_template_2025.csv');
    expect(out[0]!.values).toMatchObject({ sku: 'SRT_COT_111', title: 'Example T-Shirt - Green / S', overrides: { condition: 'NEW' } });
    expect(out[0]!.values.images_source![0]).toBe('https://burst.shopifycdn.com/photos/green-t-shirt.jpg?width=1500');
    const hat = out.find((d) => d.values.sku === 'HAT_GRY_275')!;
    expect(hat.values).toMatchObject({ title: 'Example Beanie', overrides: { condition: 'REFURBISHED' } });
    const pants = out.filter((d) => d.values.sku?.startsWith('PNT_'));
    expect(pants.map((d) => d.rows ?? 1)).toEqual([2, 1, 1]);
    // The pants are a draft and the hat archived in the shop: not for sale, so not listed.
    expect(out.filter((d) => d.skip !== undefined).map((d) => [d.values.sku, d.skip])).toEqual([
      ...pants.map((d) => [d.values.sku, 'not active in Shopify (Status "draft"): only active products are listed']),
      ['HAT_GRY_275', 'not active in Shopify (Status "archived"): only active products are listed'],
    ]);
  });

  it('2019 template: a product row without a SKU gets <Handle>-<option value>', async () => {
    const out = await drafts('product_template_2019.csv');
    expect(out.map((d) => d.values.sku)).toEqual(['example-t-shirt-lithograph-height-9-x-width-12', 'example-shirt-s', 'example-shirt-m']);
    expect(out[0]!.values.overrides).toEqual({ condition: 'USED' });
  });
});
