import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { magentoDrafts, magentoImages } from '../../../src/catalog/presets/magento.js';
import { prestashopDrafts } from '../../../src/catalog/presets/prestashop.js';
import { PRESET_NAMES, PRESETS, presetKind, recognisePreset } from '../../../src/catalog/presets/index.js';
import { checkCatalogOptions, openCatalog } from '../../../src/catalog/open-catalog.js';
import type { RecordItem } from '../../../src/catalog/read-records.js';
import type { CatalogNotice, Draft } from '../../../src/catalog/types.js';
import { UsageError } from '../../../src/errors.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { collect } from '../../helpers/sources-collect.js';

async function drafts(run: (items: AsyncIterable<RecordItem>) => AsyncIterable<Draft>, rows: RecordItem[]): Promise<Draft[]> {
  async function* feed(): AsyncIterable<RecordItem> {
    for (const row of rows) yield await Promise.resolve(row);
  }
  return collect(run(feed()));
}

const MAGENTO_COLUMNS = ['sku', 'store_view_code', 'attribute_set_code', 'product_type', 'name', 'product_online', 'base_image', 'small_image', 'thumbnail_image', 'additional_images', 'configurable_variations'];
/** A Magento export row: every column present (as in a CSV), the given ones filled. */
function magento(line: number, cells: Record<string, string>): RecordItem {
  const fields: Record<string, string> = {};
  for (const column of MAGENTO_COLUMNS) fields[column] = cells[column] ?? '';
  return { location: { source: 'magento.csv', line }, fields };
}

const PRESTASHOP_COLUMNS = ['Product ID', 'Active (0/1)', 'Name *', 'Reference #', 'Image URLs (x,y,z...)', 'Condition'];
function prestashop(line: number, cells: Record<string, string>): RecordItem {
  const fields: Record<string, string> = {};
  for (const column of PRESTASHOP_COLUMNS) fields[column] = cells[column] ?? '';
  return { location: { source: 'ps.csv', line }, fields };
}

const fixture = (name: string): string => join(REPO_ROOT, 'fixtures', name);

describe('--preset magento', () => {
  it('lists a simple product: sku, name, the image roles then additional_images split on commas, without repeats', async () => {
    const out = await drafts(magentoDrafts, [
      magento(2, { sku: 'MB01-Blue', product_type: 'simple', name: 'Joust Duffle Bag', product_online: '1', base_image: '/m/b/mb01-blue-0.jpg', small_image: '/m/b/mb01-blue-0.jpg', thumbnail_image: '/m/b/mb01-blue-0.jpg', additional_images: '/m/b/mb01-blue-1.jpg, /m/b/mb01-back.jpg,,/m/b/mb01-blue-0.jpg' }),
    ]);
    expect(out).toEqual([
      { location: { source: 'magento.csv', line: 2 }, values: { sku: 'MB01-Blue', title: 'Joust Duffle Bag', images_source: ['/m/b/mb01-blue-0.jpg', '/m/b/mb01-blue-1.jpg', '/m/b/mb01-back.jpg'] }, issues: [] },
    ]);
  });

  it("drops Magento's no_selection, and takes the small image when there is no base image", () => {
    expect(magentoImages({ base_image: 'no_selection', small_image: '/s/m/small.jpg', thumbnail_image: 'no_selection', additional_images: '' })).toEqual(['/s/m/small.jpg']);
    expect(magentoImages({ base_image: 'no_selection', small_image: 'no_selection', thumbnail_image: 'no_selection' })).toEqual([]);
  });

  it('skips, with the reason, the rows that are not listings: store view overrides, disabled products, configurable, bundle and grouped parents', async () => {
    const out = await drafts(magentoDrafts, [
      magento(2, { sku: 'MH01-XS', product_type: 'simple', name: 'Hoodie-XS', product_online: '1' }),
      magento(3, { sku: 'MH01-XS', store_view_code: 'de', product_type: 'simple', name: 'Kapuzenpulli-XS' }),
      magento(4, { sku: 'MH01-OLD', product_type: 'simple', name: 'Old', product_online: '0' }),
      magento(5, { sku: 'MH01', product_type: 'configurable', name: 'Hoodie', product_online: '1', configurable_variations: 'sku=MH01-XS,size=XS' }),
      magento(6, { sku: 'SET', product_type: 'bundle', name: 'Set', product_online: '1' }),
      magento(7, { sku: 'GRP', product_type: 'grouped', name: 'Group', product_online: '1' }),
      magento(8, { sku: 'VIRT', product_type: 'virtual', name: 'Gift card', product_online: '1' }),
    ]);
    expect(out.map((d) => [d.location.line, d.values.sku, d.skip])).toEqual([
      [2, 'MH01-XS', undefined],
      [3, 'MH01-XS', 'a store view\'s values (store_view_code "de"); the product is listed from its default row'],
      [4, 'MH01-OLD', 'disabled in Magento (product_online "0")'],
      [5, 'MH01', 'a configurable product is not a listing itself; its simple products are listed from their own rows'],
      [6, 'SET', 'a bundle product is not a listing itself; the products it bundles are listed from their own rows'],
      [7, 'GRP', 'a grouped product is not a listing itself; the products it groups are listed from their own rows'],
      [8, 'VIRT', undefined],
    ]);
    expect(out.every((d) => d.issues.length === 0 && d.rows === undefined)).toBe(true);
  });

  it('passes an unreadable record through as an invalid draft, and refuses a file without its key columns', async () => {
    const out = await drafts(magentoDrafts, [magento(2, { sku: 'A', product_type: 'simple' }), { location: { source: 'magento.csv', line: 3 }, error: 'unclosed quote' }]);
    expect(out[1]).toEqual({ location: { source: 'magento.csv', line: 3 }, values: {}, issues: [{ path: '(record)', message: 'unclosed quote' }] });
    await expect(drafts(magentoDrafts, [{ location: { source: 'x.csv', line: 2 }, fields: { SKU: 'A' } }])).rejects.toThrow(/x\.csv has no "sku", "product_type" column; is it a magento product export\?/);
  });
});

describe('--preset prestashop', () => {
  it('lists a product: Reference # as the SKU, Name, the image URLs split on commas, the condition upper-cased', async () => {
    const out = await drafts(prestashopDrafts, [
      prestashop(2, { 'Product ID': '1', 'Active (0/1)': '1', 'Name *': 'Hummingbird t-shirt', 'Reference #': 'demo_1', 'Image URLs (x,y,z...)': 'https://s.example.com/img/p/1/1.jpg, https://s.example.com/img/p/2/2.jpg', Condition: 'refurbished' }),
    ]);
    expect(out).toEqual([
      {
        location: { source: 'ps.csv', line: 2 },
        values: { sku: 'demo_1', title: 'Hummingbird t-shirt', images_source: ['https://s.example.com/img/p/1/1.jpg', 'https://s.example.com/img/p/2/2.jpg'], overrides: { condition: 'REFURBISHED' } },
        issues: [],
      },
    ]);
  });

  it('skips a disabled product with the reason, and reports a row without a reference at that column', async () => {
    const out = await drafts(prestashopDrafts, [
      prestashop(2, { 'Active (0/1)': '0', 'Name *': 'Retired', 'Reference #': 'demo_8' }),
      prestashop(3, { 'Active (0/1)': '1', 'Name *': 'No reference' }),
    ]);
    expect(out[0]).toMatchObject({ values: { sku: 'demo_8' }, skip: 'disabled in PrestaShop (Active (0/1) "0")' });
    expect(out[1]).toMatchObject({ location: { source: 'ps.csv', line: 3 }, issues: [{ path: 'Reference #', message: 'is empty: a listing needs a SKU, which PrestaShop calls the reference' }] });
    expect(out[1]!.skip).toBeUndefined();
  });

  it('reads a `;` export with Name instead of Name *', async () => {
    const out = await drafts(prestashopDrafts, [{ location: { source: 'ps.csv', line: 2 }, fields: { 'Reference #': 'R1', Name: 'Plain name', 'Active (0/1)': '1' } }]);
    expect(out[0]!.values).toEqual({ sku: 'R1', title: 'Plain name' });
  });
});

describe('the preset registry and --preset auto', () => {
  it('lists every preset once, and auto', () => {
    expect(PRESET_NAMES).toEqual(['shopify', 'woocommerce', 'magento', 'prestashop']);
    expect(PRESETS).toEqual([...PRESET_NAMES, 'auto']);
    for (const name of PRESET_NAMES) expect(presetKind(name)?.name).toBe(name);
  });

  it.each([
    ['shopify-export.csv', 'shopify'],
    ['woocommerce-export.csv', 'woocommerce'],
    ['magento-export.csv', 'magento'],
    ['prestashop-export.csv', 'prestashop'],
    ['catalog.csv', undefined],
  ])('recognises %s as %s by its header, and says so', async (file, expected) => {
    const notices: CatalogNotice[] = [];
    const catalog = await openCatalog(fixture(file), { preset: 'auto', onNotice: (notice) => notices.push(notice) });
    const preset = notices.find((notice) => notice.kind === 'preset');
    expect(preset).toMatchObject({ kind: 'preset', source: fixture(file), ...(expected === undefined ? {} : { preset: expected }) });
    expect(preset?.message).toMatch(expected === undefined ? /read with the generic mapping, no preset \(its header is no known export's; the presets: shopify, woocommerce, magento, prestashop\)/ : new RegExp(`recognised by its header`));
    const auto = await collect(catalog.drafts);
    const named = expected === undefined ? await collect((await openCatalog(fixture(file))).drafts) : await collect((await openCatalog(fixture(file), { preset: expected })).drafts);
    expect(auto).toEqual(named);
  });

  it('the signature of one export is not taken for another', () => {
    for (const name of PRESET_NAMES) expect(recognisePreset(presetKind(name)!.signature)?.name).toBe(name);
    expect(recognisePreset(['sku', 'title', 'images_source'])).toBeUndefined();
  });

  it('a JSON catalog is read with the generic mapping under auto, and the notice says why', async () => {
    const notices: CatalogNotice[] = [];
    const catalog = await openCatalog(fixture('catalog.json'), { preset: 'auto', onNotice: (notice) => notices.push(notice) });
    expect((await collect(catalog.drafts)).length).toBeGreaterThan(0);
    expect(notices.filter((n) => n.kind === 'preset').map((n) => n.message)).toEqual([`${fixture('catalog.json')}: read with the generic mapping, no preset (a preset is recognised by a CSV header, and this is json; the presets: shopify, woocommerce, magento, prestashop)`]);
  });

  it('refuses a preset name the registry does not hold, naming the setting, with a did-you-mean', () => {
    expect(() => checkCatalogOptions({ preset: 'magneto' })).toThrow(UsageError);
    try {
      checkCatalogOptions({ preset: 'magneto' });
    } catch (error) {
      expect((error as UsageError).message).toBe('preset magneto: no such preset');
      expect((error as UsageError).hint).toBe('did you mean magento? the presets: shopify, woocommerce, magento, prestashop, auto');
    }
  });
});
