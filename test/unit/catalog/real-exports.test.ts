import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRecordError, openRecords, type RecordItem } from '../../../src/catalog/read-records.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { collect } from '../../helpers/sources-collect.js';

// Real catalog exports none of us wrote (../shared/testdata/README.md), read in place; never copied into the repository.
const CATALOGS = join(REPO_ROOT, '..', 'shared', 'testdata', 'catalogs');
const present = existsSync(CATALOGS);
if (!present) console.warn(`real-exports: skipped, ${CATALOGS} is absent (the exports are not redistributed)`);
const title = present ? 'real catalog exports, read record by record' : `real catalog exports (skipped: ${CATALOGS} is absent)`;

async function records(file: string): Promise<RecordItem[]> {
  return collect((await openRecords(join(CATALOGS, file), {})).records);
}

/** The fields of the record whose `key` is `value`. */
function row(items: readonly RecordItem[], key: string, value: string): Record<string, unknown> {
  const found = items.find((item) => !isRecordError(item) && item.fields[key] === value);
  if (found === undefined || isRecordError(found)) throw new Error(`no record with ${key} ${value}`);
  return found.fields;
}

describe.skipIf(!present)(title, () => {
  // Per file: its columns, its records, and the lines the first and the last start on (multi-line values in between).
  it.each([
    ['commercetools-sunrise-data/product-export-template.csv', 49, 0, undefined, undefined],
    ['commercetools-sunrise-data/products-ci.csv', 49, 3, 2, 4],
    ['magento2-sample-data/CatalogSampleData__SimpleProduct__products_gear_bags.csv', 19, 14, 2, 255],
    ['magento2-sample-data/CatalogSampleData__SimpleProduct__products_gear_fitness_equipment.csv', 17, 9, 2, 104],
    ['magento2-sample-data/CatalogSampleData__SimpleProduct__products_gear_fitness_equipment_ball.csv', 15, 9, 2, 95],
    ['magento2-sample-data/CatalogSampleData__SimpleProduct__products_gear_fitness_equipment_strap.csv', 13, 3, 2, 23],
    ['magento2-sample-data/CatalogSampleData__SimpleProduct__products_gear_watches.csv', 17, 9, 2, 109],
    // 1,994 products over 3,941 lines: the last record starts on line 3,940 and its description ends on 3,941.
    ['magento2-sample-data/ConfigurableSampleData__products.csv', 70, 1994, 2, 3940],
    ['magento2-sample-data/DownloadableSampleData__products_training_video_download.csv', 13, 6, 2, 66],
    ['shopify/apparel.csv', 46, 22, 2, 23],
    ['shopify/home-and-garden.csv', 47, 21, 2, 22],
    ['shopify/jewelery.csv', 46, 41, 2, 55],
    ['shopify/product_template_2019.csv', 47, 3, 2, 4],
    ['shopify/product_template_2025.csv', 48, 17, 2, 18],
  ])('%s: %i columns, %i records, from line %s to line %s, none an error', async (file, columns, count, first, last) => {
    let header: readonly string[] = [];
    const items = await collect((await openRecords(join(CATALOGS, file), { onHeader: (names) => (header = names) })).records);
    expect(header).toHaveLength(columns);
    expect(items.filter(isRecordError)).toEqual([]);
    expect(items).toHaveLength(count);
    expect([items[0]?.location.line, items.at(-1)?.location.line]).toEqual([first, last]);
    for (const item of items) expect(isRecordError(item) ? [] : Object.keys(item.fields)).toEqual(header);
  });

  it('commercetools: typographic quotes and ; lists as written, empty cells empty, no CR of the CRLF in any value', async () => {
    const items = await records('commercetools-sunrise-data/products-ci.csv');
    const sneaker = row(items, 'sku', 'M0E20000000DX1Y');
    expect(sneaker).toMatchObject({ 'name.en': 'Sneakers ”R261” Hogan Rebel grey', 'name.de': 'Sneakers „R261” Hogan Rebel grau', prices: 'EUR 34375;US-USD 34375;DE-EUR 27500', 'description.en': '' });
    expect(row(items, 'sku', 'M0E20000000ELAJ')['name.en']).toBe('Flip Flops “Brasil“ Havaianas green');
    expect(items.some((item) => !isRecordError(item) && Object.values(item.fields).some((value) => String(value).includes('\r')))).toBe(false);
  });

  it('Shopify: barcodes as written (3.65275E+11), non-breaking spaces, U+2028 and line breaks inside HTML kept, trailing space kept', async () => {
    const template = await records('shopify/product_template_2025.csv');
    expect(row(template, 'Variant SKU', 'SRT_COT_111')).toMatchObject({ 'Variant Barcode': '3.65275E+11', 'Google Shopping / MPN': '3.65275E+11' });
    expect(row(template, 'Variant SKU', 'SRT_COT_122')).toMatchObject({ 'Variant Barcode': '4.6347E+11', 'Google Shopping / MPN': '' });
    const choker = row(await records('shopify/jewelery.csv'), 'Handle', 'choker-with-gold-pendant')['Body (HTML)'] as string;
    expect(choker.startsWith('Black cord choker with gold pendant.\u00a0Beautifully died black leather')).toBe(true);
    expect(choker).toContain('strong.\u2028<ul>\n<li>14k yellow gold</li>\n<li>Leather</li>\n');
    const jumper = row(await records('shopify/apparel.csv'), 'Handle', 'yellow-wool-jumper')['Body (HTML)'];
    expect(jumper).toBe('Knitted jumper in a soft wool blend with low dropped shoulders and wide\u00a0sleeves and think cuffs. Perfect for keeping warm during Fall. ');
  });

  it('Magento: a name with a trailing space and multi-line category cells are read as written', async () => {
    const items = await records('magento2-sample-data/CatalogSampleData__SimpleProduct__products_gear_fitness_equipment.csv');
    expect(row(items, 'sku', '24-UG06')).toMatchObject({ name: 'Affirm Water Bottle ', category: 'Gear\nFitness Equipment' });
  });

  it.each([
    ['ndjson-json-catalogs/dummyjson-products.json', 'json', 194],
    ['ndjson-json-catalogs/google-retail-sample-products.ja.jsonl', 'ndjson', 1276],
  ])('%s: read as %s, %i records, each exactly the object written, located by its number', async (file, format, count) => {
    const text = readFileSync(join(CATALOGS, file), 'utf8');
    const written = format === 'json' ? (JSON.parse(text) as unknown[]) : text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as unknown);
    const stream = await openRecords(join(CATALOGS, file), {});
    expect(stream.format).toBe(format);
    const items = await collect(stream.records);
    expect(items).toHaveLength(count);
    expect(items.map((item) => item.location.record ?? item.location.line)).toEqual(written.map((_, i) => i + 1));
    expect(items.map((item) => (isRecordError(item) ? item.error : item.fields))).toEqual(written);
  });
});
