import { describe, expect, it } from 'vitest';
import { shopifyDrafts, shopifyCondition } from '../../../src/catalog/presets/shopify.js';
import { woocommerceDrafts, wooTypes } from '../../../src/catalog/presets/woocommerce.js';
import { slug } from '../../../src/catalog/presets/cells.js';
import type { RecordItem } from '../../../src/catalog/read-records.js';
import type { Draft } from '../../../src/catalog/types.js';
import { createPreparer } from '../../../src/prepare/preparer.js';

async function drafts(run: (items: AsyncIterable<RecordItem>) => AsyncIterable<Draft>, rows: RecordItem[]): Promise<Draft[]> {
  async function* feed(): AsyncIterable<RecordItem> {
    for (const row of rows) yield await Promise.resolve(row);
  }
  const out: Draft[] = [];
  for await (const draft of run(feed())) out.push(draft);
  return out;
}

const SHOPIFY_COLUMNS = ['Handle', 'Title', 'Option1 Name', 'Option1 Value', 'Option2 Name', 'Option2 Value', 'Option3 Name', 'Option3 Value', 'Variant SKU', 'Variant Price', 'Image Src', 'Image Position', 'Variant Image', 'Google Shopping / Condition'];
/** A Shopify row: every column present (as in a CSV), the given ones filled. */
function shop(line: number, cells: Record<string, string>): RecordItem {
  const fields: Record<string, string> = {};
  for (const column of SHOPIFY_COLUMNS) fields[column] = cells[column] ?? '';
  return { location: { source: 'shop.csv', line }, fields };
}

describe('--preset shopify', () => {
  it('makes one listing per variant with the product images, variant image first', async () => {
    const out = await drafts(shopifyDrafts, [
      shop(2, { Handle: 'tee', Title: 'Tee', 'Option1 Name': 'Color', 'Option1 Value': 'Green', 'Option2 Name': 'Size', 'Option2 Value': 'S', 'Variant SKU': 'T-GS', 'Variant Price': '9', 'Image Src': 'https://i/1.jpg', 'Variant Image': 'https://i/g.jpg', 'Google Shopping / Condition': 'new' }),
      shop(3, { Handle: 'tee', 'Option1 Value': 'Green', 'Option2 Value': 'M', 'Variant SKU': 'T-GM', 'Variant Price': '9', 'Image Src': 'https://i/2.jpg', 'Variant Image': 'https://i/g.jpg' }),
      shop(4, { Handle: 'tee', 'Image Src': 'https://i/3.jpg', 'Image Position': '3' }),
    ]);
    expect(out).toEqual([
      {
        location: { source: 'shop.csv', line: 2 },
        values: { sku: 'T-GS', title: 'Tee - Green / S', images_source: ['https://i/g.jpg', 'https://i/1.jpg', 'https://i/2.jpg', 'https://i/3.jpg'], overrides: { condition: 'NEW' } },
        issues: [],
        rows: 2,
      },
      {
        location: { source: 'shop.csv', line: 3 },
        values: { sku: 'T-GM', title: 'Tee - Green / M', images_source: ['https://i/g.jpg', 'https://i/1.jpg', 'https://i/2.jpg', 'https://i/3.jpg'], overrides: { condition: 'NEW' } },
        issues: [],
      },
    ]);
  });

  it('uses the Handle as the SKU of a single default variant without Variant SKU', async () => {
    const out = await drafts(shopifyDrafts, [
      shop(2, { Handle: 'mug', Title: 'Mug', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant Price': '5', 'Image Src': 'https://i/m.jpg' }),
      shop(3, { Handle: 'mug', 'Image Src': 'https://i/m2.jpg' }),
      shop(4, { Handle: 'mug', 'Image Src': 'https://i/m3.jpg' }),
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]!.values).toEqual({ sku: 'mug', title: 'Mug', images_source: ['https://i/m.jpg', 'https://i/m2.jpg', 'https://i/m3.jpg'] });
    expect(out[0]!.rows).toBe(3);
  });

  it('uses <Handle>-<option values> for variants without Variant SKU', async () => {
    const out = await drafts(shopifyDrafts, [
      shop(2, { Handle: 'top', Title: 'Varsity Top', 'Option1 Name': 'Size', 'Option1 Value': 'Small', 'Variant Price': '60' }),
      shop(3, { Handle: 'top', 'Option1 Value': 'X Large', 'Variant Price': '60' }),
      shop(4, { Handle: 'top', 'Option1 Value': 'Größe 2', 'Variant Price': '60' }),
    ]);
    expect(out.map((d) => [d.values.sku, d.values.title])).toEqual([
      ['top-small', 'Varsity Top - Small'],
      ['top-x-large', 'Varsity Top - X Large'],
      ['top-große-2', 'Varsity Top - Größe 2'],
    ]);
  });

  it('numbers variants that have neither SKU nor option values', async () => {
    const out = await drafts(shopifyDrafts, [shop(2, { Handle: 'x', Title: 'X', 'Variant Price': '1' }), shop(3, { Handle: 'x', 'Variant Price': '2' })]);
    expect(out.map((d) => d.values.sku)).toEqual(['x-1', 'x-2']);
  });

  it('streams: a product is released when the next Handle starts, and a parser error passes through', async () => {
    const out = await drafts(shopifyDrafts, [
      shop(2, { Handle: 'a', Title: 'A', 'Variant SKU': 'A1' }),
      { location: { source: 'shop.csv', line: 3 }, error: 'unclosed quote' },
      shop(5, { Handle: 'b', Title: 'B', 'Variant SKU': 'B1' }),
      shop(6, { Handle: '', Title: 'orphan' }),
    ]);
    expect(out.map((d) => [d.location.line, d.values.sku, d.issues.map((i) => i.path)])).toEqual([
      [3, undefined, ['(record)']],
      [2, 'A1', []],
      [6, undefined, ['Handle']],
      [5, 'B1', []],
    ]);
  });

  it('skips each variant of a product whose Status is not active (draft, archived), with why; no Status lists it', async () => {
    const status = (line: number, cells: Record<string, string>, value: string): RecordItem => {
      const row = shop(line, cells) as { location: { source: string; line: number }; fields: Record<string, string> };
      return { ...row, fields: { ...row.fields, Status: value } };
    };
    const out = await drafts(shopifyDrafts, [
      status(2, { Handle: 'pants', Title: 'Pants', 'Option1 Name': 'Size', 'Option1 Value': '28', 'Variant SKU': 'P-28' }, 'draft'),
      status(3, { Handle: 'pants', 'Option1 Value': '30', 'Variant SKU': 'P-30' }, ''),
      status(4, { Handle: 'pants', 'Image Src': 'https://i/p.jpg' }, ''),
      status(5, { Handle: 'hat', Title: 'Hat', 'Variant SKU': 'H-1' }, 'Archived'),
      status(6, { Handle: 'tee', Title: 'Tee', 'Variant SKU': 'T-1' }, 'Active'),
      status(7, { Handle: 'cap', Title: 'Cap', 'Variant SKU': 'C-1' }, ''),
    ]);
    expect(out.map((d) => [d.location.line, d.values.sku, d.skip, d.rows ?? 1])).toEqual([
      [2, 'P-28', 'not active in Shopify (Status "draft"): only active products are listed', 2],
      [3, 'P-30', 'not active in Shopify (Status "draft"): only active products are listed', 1],
      [5, 'H-1', 'not active in Shopify (Status "Archived"): only active products are listed', 1],
      [6, 'T-1', undefined, 1],
      [7, 'C-1', undefined, 1],
    ]);
  });

  it('maps Google Shopping conditions and passes other text on', () => {
    expect(['new', 'Used', 'refurbished', 'damaged', ''].map(shopifyCondition)).toEqual(['NEW', 'USED', 'REFURBISHED', 'damaged', undefined]);
  });

  it('refuses a file that is not a Shopify export', async () => {
    await expect(drafts(shopifyDrafts, [{ location: { source: 'x.csv', line: 2 }, fields: { sku: 'A' } }])).rejects.toThrow(/^preset shopify: x.csv has no "Handle", "Variant SKU" column/);
  });
});

const WOO_COLUMNS = ['ID', 'Type', 'SKU', 'Name', 'Published', 'Images', 'Parent', 'Attribute 1 name', 'Attribute 1 value(s)', 'Attribute 2 name', 'Attribute 2 value(s)'];
function woo(line: number, cells: Record<string, string>): RecordItem {
  const fields: Record<string, string> = {};
  for (const column of WOO_COLUMNS) fields[column] = cells[column] ?? '';
  return { location: { source: 'woo.csv', line }, fields };
}

describe('--preset woocommerce', () => {
  it('lists simple products with their comma-separated images', async () => {
    const out = await drafts(woocommerceDrafts, [woo(2, { ID: '10', Type: 'simple, virtual', SKU: 'S1', Name: 'Beanie', Images: 'https://i/a.jpg, https://i/b.jpg' })]);
    expect(out).toEqual([{ location: { source: 'woo.csv', line: 2 }, values: { sku: 'S1', title: 'Beanie', images_source: ['https://i/a.jpg', 'https://i/b.jpg'] }, issues: [] }]);
  });

  it('lists each variation, not its variable parent, which gives images, title and SKU fallbacks', async () => {
    const out = await drafts(woocommerceDrafts, [
      woo(2, { ID: '20', Type: 'variable', SKU: 'HOOD', Name: 'Hoodie', Images: 'https://i/h.jpg', 'Attribute 1 name': 'Color', 'Attribute 1 value(s)': 'Blue, Red' }),
      woo(3, { ID: '21', Type: 'simple', SKU: 'CAP', Name: 'Cap' }),
      woo(4, { ID: '22', Type: 'variation', SKU: 'HOOD-BLUE', Name: 'Hoodie - Blue', Parent: 'HOOD', Images: 'https://i/hb.jpg', 'Attribute 1 value(s)': 'Blue' }),
      woo(5, { ID: '23', Type: 'variation', Parent: 'id:20', 'Attribute 1 value(s)': 'Red', 'Attribute 2 value(s)': 'XL' }),
    ]);
    expect(out.map((d) => [d.location.line, d.values, d.rows])).toEqual([
      [3, { sku: 'CAP', title: 'Cap' }, undefined],
      [4, { sku: 'HOOD-BLUE', title: 'Hoodie - Blue', images_source: ['https://i/hb.jpg', 'https://i/h.jpg'] }, 2],
      [5, { sku: 'HOOD-red-xl', title: 'Hoodie - Red, XL', images_source: ['https://i/h.jpg'] }, undefined],
    ]);
  });

  it('lists a variable product without variations itself, at the end', async () => {
    const out = await drafts(woocommerceDrafts, [
      woo(2, { ID: '30', Type: 'variable', SKU: 'LONE', Name: 'Lonely', Images: 'https://i/l.jpg' }),
      woo(3, { ID: '31', Type: 'simple', SKU: 'S', Name: 'S' }),
    ]);
    expect(out.map((d) => [d.location.line, d.values.sku])).toEqual([
      [3, 'S'],
      [2, 'LONE'],
    ]);
  });

  it('marks grouped products to be skipped (not listings) and keeps every row', async () => {
    const out = await drafts(woocommerceDrafts, [woo(2, { ID: '40', Type: 'grouped', Name: 'Set' }), { location: { source: 'woo.csv', line: 3 }, error: 'bad' }]);
    expect(out.map((d) => d.issues.map((i) => i.path))).toEqual([[], ['(record)']]);
    expect(out[0]!.skip).toMatch(/^a grouped product is not a listing itself/);
    expect(out[1]!.skip).toBeUndefined();
    const prepare = createPreparer({ shape: 'flat', saved_defaults: true });
    expect(prepare(out[0]!)).toEqual({ kind: 'skipped', location: { source: 'woo.csv', line: 2 }, reason: out[0]!.skip });
  });

  it('skips what is not published in the shop (Published -1 draft, 0 private or a disabled variation), and the variations of a parent that is not', async () => {
    const out = await drafts(woocommerceDrafts, [
      woo(2, { ID: '60', Type: 'simple', SKU: 'DRAFT', Name: 'Draft', Published: '-1' }),
      woo(3, { ID: '61', Type: 'simple', SKU: 'PRIV', Name: 'Private', Published: '0' }),
      woo(4, { ID: '62', Type: 'simple', SKU: 'LIVE', Name: 'Live', Published: '1' }),
      woo(5, { ID: '63', Type: 'variable', SKU: 'VAR', Name: 'Var', Published: '1' }),
      woo(6, { ID: '64', Type: 'variation', SKU: 'VAR-OFF', Parent: 'VAR', Published: '0' }),
      woo(7, { ID: '65', Type: 'variation', SKU: 'VAR-ON', Parent: 'VAR', Published: '1' }),
      woo(8, { ID: '66', Type: 'variable', SKU: 'WIP', Name: 'Wip', Published: '-1' }),
      woo(9, { ID: '67', Type: 'variation', SKU: 'WIP-A', Parent: 'id:66', Published: '1' }),
      woo(10, { ID: '68', Type: 'variable', SKU: 'LONE', Name: 'Lone', Published: '-1' }),
      woo(11, { ID: '69', Type: 'simple', SKU: 'NONE', Name: 'No column value' }),
    ]);
    expect(out.map((d) => [d.location.line, d.values.sku, d.skip])).toEqual([
      [2, 'DRAFT', 'the product is a draft in WooCommerce (Published "-1"): only published products are listed'],
      [3, 'PRIV', 'the product is private or disabled in WooCommerce (Published "0"): only published products are listed'],
      [4, 'LIVE', undefined],
      [6, 'VAR-OFF', 'the variation is private or disabled in WooCommerce (Published "0"): only published products are listed'],
      [7, 'VAR-ON', undefined],
      [9, 'WIP-A', 'its parent product is a draft in WooCommerce (Published "-1"): only published products are listed'],
      [11, 'NONE', undefined],
      [10, 'LONE', 'the product is a draft in WooCommerce (Published "-1"): only published products are listed'],
    ]);
  });

  it('leaves a variation whose parent is unknown and that has no SKU without one', async () => {
    const out = await drafts(woocommerceDrafts, [woo(2, { ID: '50', Type: 'variation', Parent: 'id:999', Name: 'Ghost' })]);
    expect(out[0]!.values).toEqual({ title: 'Ghost' });
  });

  it('parses Type lists and slugs', () => {
    expect(wooTypes('Simple, Downloadable,virtual')).toEqual(['simple', 'downloadable', 'virtual']);
    expect(slug('  Größe / XL  ')).toBe('große-xl');
    expect(slug('Crème Brûlée')).toBe('creme-brulee');
  });
});
