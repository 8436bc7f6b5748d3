import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters as plain } from 'node:util';
import { describe, expect, it } from 'vitest';
import { columnsNotRead, mapHeader, mapRecords, quoteName } from '../../../src/catalog/mapping/index.js';
import { openCatalog } from '../../../src/catalog/open-catalog.js';
import type { CatalogNotice, CatalogRecord, Draft } from '../../../src/catalog/types.js';
import type { RecordItem } from '../../../src/catalog/read-records.js';
import { noticeLine, noticePrinter } from '../../../src/cli/notices.js';
import { noticeMatters } from '../../../src/prepare/notice-matters.js';
import type { ListingDefaults } from '../../../src/prepare/types.js';
import { UsageError } from '../../../src/errors.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { thrown } from '../../helpers/errors.js';
import { collect } from '../../helpers/sources-collect.js';
import { tempDir } from '../../helpers/tmp.js';

const rec = (fields: Record<string, unknown>, line = 2): CatalogRecord => ({ location: { source: 'c.csv', line }, fields });

async function* feed(items: RecordItem[]): AsyncIterable<RecordItem> {
  for (const item of items) yield await Promise.resolve(item);
}

describe('mapHeader: names matched loosely', () => {
  it("matches a field's own name ignoring case and spaces, and says which", () => {
    const mapping = mapHeader(['SKU ', 'Title', ' images_source', 'marketplace'], {}, 'c.csv');
    expect(mapping.map).toEqual({ sku: 'SKU ', title: 'Title', images_source: ' images_source' });
    expect(mapping.loose).toEqual([
      { column: 'SKU ', field: 'sku' },
      { column: 'Title', field: 'title' },
      { column: ' images_source', field: 'images_source' },
    ]);
  });

  it('prefers an exact name, and refuses two loose ones', () => {
    expect(mapHeader(['SKU', 'sku'], {}, 'c.csv')).toEqual({ map: {}, loose: [] });
    expect(thrown(UsageError, () => mapHeader(['Sku', 'SKU '], {}, 'c.csv')).message).toBe('c.csv: columns "Sku" and "SKU " all match sku when case and spaces are ignored');
  });

  it('matches a rename ignoring spaces (a --map value is trimmed) but not case: a wrong case is a typo', () => {
    expect(mapHeader(['Variant SKU ', 'x'], { sku: 'Variant  SKU' }, 'c.csv').map).toEqual({ sku: 'Variant SKU ' });
    const error = thrown(UsageError, () => mapHeader(['Variant Sku'], { sku: 'Variant SKU' }, 'c.csv'));
    expect(error.message).toBe('map sku=Variant SKU: c.csv has no column "Variant SKU"');
    expect(error.hint).toBe('did you mean "Variant Sku"?');
  });

  it('names the rename as it was given', () => {
    const from = { key: 'mapping', value: 'm.json (title)' };
    const error = thrown(UsageError, () => mapHeader(['sku', 'Name'], { title: 'Nmae' }, 'c.csv', { title: from }));
    expect(error.message).toBe('mapping m.json (title): c.csv has no column "Nmae"');
    expect(error.setting).toEqual(from);
    expect(error.hint).toBe('did you mean "Name"?');
  });
});

describe('columnsNotRead', () => {
  it('lists the columns no field reads; numbered list columns, dotted overrides and nested roots are read', () => {
    const columns = ['sku', 'Image.1', 'Image.2', 'overrides.condition', 'meta', 'Colour', 'images_source.1'];
    expect(columnsNotRead(columns, { images_source: 'Image', title: 'meta.name' })).toEqual(['Colour', 'images_source.1']);
  });
});

describe('quoteName', () => {
  it('escapes what could drive a terminal', () => {
    expect(quoteName('a\u001b[31mb\u009bc\u202ed')).toBe('"a\\u001b[31mb\\u009bc\\u202ed"');
  });
});

describe('mapRecords: notices', () => {
  it('tells the header once and the fields no row gives at the end, for CSV', async () => {
    const told: CatalogNotice[] = [];
    const items: RecordItem[] = [
      rec({ Sku: 'A', Colour: 'red', images_source: '' }, 2),
      { location: { source: 'c.csv', line: 3 }, error: 'unclosed quote' },
      rec({ Sku: 'B', Colour: 'blue', images_source: '' }, 4),
    ];
    const drafts = await collect(mapRecords(feed(items), { fixedColumns: true, onNotice: (notice) => told.push(notice), header: { columns: () => undefined, source: 'c.csv' } }));
    expect(drafts.map((draft) => draft.values.sku)).toEqual(['A', undefined, 'B']);
    expect(told.map((notice) => notice.message)).toEqual([
      'c.csv: read "Sku" as sku (header names matched ignoring case and spaces)',
      'c.csv: 1 column not read by any listing field: "Colour"',
      'c.csv: 0 of 2 rows have title (the header has no column "title")',
      'c.csv: 0 of 2 rows have marketplace (the header has no column "marketplace")',
      'c.csv: 0 of 2 rows have images_source (column "images_source" is empty in every row)',
      'c.csv: 0 of 2 rows have merchant_location_key (the header has no column "merchant_location_key")',
      'c.csv: 0 of 2 rows have fulfillment_policy_id (the header has no column "fulfillment_policy_id")',
      'c.csv: 0 of 2 rows have payment_policy_id (the header has no column "payment_policy_id")',
      'c.csv: 0 of 2 rows have return_policy_id (the header has no column "return_policy_id")',
    ]);
    expect(told[4]).toMatchObject({ kind: 'empty-field', field: 'images_source', rows: 2, column: 'images_source', inHeader: true });
  });

  it('for JSON, lists the first record keys no field reads, then those of later records; no notice for a field some row gives', async () => {
    const told: CatalogNotice[] = [];
    const full = { title: 'T', marketplace: 'EBAY_US', merchant_location_key: 'l', fulfillment_policy_id: 'f', payment_policy_id: 'p', return_policy_id: 'r' };
    const items: RecordItem[] = [rec({ sku: 'A', id: 7, ...full }), rec({ sku: 'B', pics: ['https://x/a.jpg'], other: 1 })];
    await collect(mapRecords(feed(items), { map: { images_source: 'pics' }, onNotice: (notice) => told.push(notice) }));
    expect(told.map((notice) => notice.message)).toEqual([
      'c.csv: 1 key of the first record not read by any listing field: "id"',
      'c.csv: 1 key of later records not read by any listing field: "other" (first at c.csv:2)',
    ]);
  });

  it('tells once the fields some row gives that the request shape does not send, when told what it sends', async () => {
    const records = [rec({ sku: 'A', title: 'Mug', 'overrides.price': '1' }), rec({ sku: 'B', images_source: 'https://x.example/a.jpg' }, 3)];
    const told: CatalogNotice[] = [];
    const sends = { shape: 'wrapped', fields: ['sku', 'title', 'marketplace'] };
    await collect(mapRecords(feed(records), { fixedColumns: false, onNotice: (notice) => told.push(notice), sends }));
    const notSent = told.filter((notice) => notice.kind === 'not-sent');
    expect(notSent).toEqual([
      { kind: 'not-sent', source: 'c.csv', shape: 'wrapped', fields: ['images_source', 'overrides'], message: 'c.csv: images_source, overrides are given but not sent: the wrapped request has no such fields' },
    ]);
    const alone: CatalogNotice[] = [];
    await collect(mapRecords(feed([rec({ sku: 'A', title: 'Mug' })]), { fixedColumns: false, onNotice: (notice) => alone.push(notice), sends: { shape: 'flat', fields: ['sku'] } }));
    expect(alone.find((notice) => notice.kind === 'not-sent')?.message).toBe('c.csv: title is given but not sent: the flat request has no such field');
    const without: CatalogNotice[] = [];
    await collect(mapRecords(feed(records), { fixedColumns: false, onNotice: (notice) => without.push(notice) }));
    expect(without.some((notice) => notice.kind === 'not-sent')).toBe(false);
  });

  it('refuses a sends option of the wrong shape before anything is read (a library caller\'s)', async () => {
    for (const sends of [5, null, { shape: 'flat' }, { shape: 'flat', fields: 'sku' }, { shape: 1, fields: [] }, { shape: 'flat', fields: [1] }]) {
      await expect(openCatalog(join(REPO_ROOT, 'fixtures', 'catalog.csv'), { sends } as never)).rejects.toThrow('the catalog option sends must be { shape: string, fields: string[] }');
    }
  });

  it('says nothing when no row was read, and nothing without a listener', async () => {
    const told: CatalogNotice[] = [];
    await collect(mapRecords(feed([]), { fixedColumns: true, onNotice: (notice) => told.push(notice) }));
    expect(told).toEqual([]);
    expect(await collect(mapRecords(feed([rec({ sku: 'A' })]), { fixedColumns: true }))).toHaveLength(1);
  });

  it('tells the keys no field reads that only later JSON records hold, once each, where each was first seen', async () => {
    const told: CatalogNotice[] = [];
    const json = (fields: Record<string, unknown>, record: number): CatalogRecord => ({ location: { source: 'c.json', record }, fields });
    const records = [json({ sku: 'A', colour: 'red' }, 1), json({ sku: 'B', colour: 'red', weight: 2 }, 2), json({ sku: 'C', title: 't', weight: 3 }, 3), json({ sku: 'D', 'x\u001b': 1 }, 4)];
    const drafts = await collect(mapRecords(feed(records), { onNotice: (notice) => told.push(notice) }));
    expect(drafts).toHaveLength(4);
    const notRead = told.filter((notice) => notice.kind === 'columns-not-read');
    expect(notRead.map((notice) => notice.message)).toEqual([
      'c.json: 1 key of the first record not read by any listing field: "colour"',
      'c.json: 2 keys of later records not read by any listing field: "weight" (first at c.json#2), "x\\u001b" (first at c.json#4)',
    ]);
    expect(notRead[1]).toMatchObject({ columns: ['weight', 'x\u001b'] });
  });

  it('stops looking for new keys past 10,000 names, and says so', async () => {
    const told: CatalogNotice[] = [];
    const records = Array.from({ length: 10_050 }, (_, i): CatalogRecord => ({ location: { source: 'c.ndjson', line: i + 1 }, fields: { sku: `S${i}`, [`k${i}`]: 1 } }));
    await collect(mapRecords(feed(records), { onNotice: (notice) => told.push(notice) }));
    const later = told.filter((notice) => notice.kind === 'columns-not-read').at(-1)!;
    expect(later.kind === 'columns-not-read' && later.columns.length).toBeLessThan(10_000);
    expect(later.message).toMatch(/^c\.ndjson: \d+ keys of later records not read by any listing field: "k1" \(first at c\.ndjson:2\), .* and \d+ more \(keys past the first 10,000 were not looked at\)$/);
  });

  it('caps a long list of columns not read', async () => {
    const told: CatalogNotice[] = [];
    const fields: Record<string, string> = { sku: 'A' };
    for (let i = 1; i <= 9; i++) fields[`c${i}`] = 'x';
    await collect(mapRecords(feed([rec(fields)]), { fixedColumns: true, onNotice: (notice) => told.push(notice) }));
    expect(told[0]!.message).toBe('c.csv: 9 columns not read by any listing field: "c1", "c2", "c3", "c4", "c5", "c6" and 3 more');
  });
});

describe('openCatalog: the header is checked when the catalog is opened', () => {
  it('throws for a renamed column not in the header before any draft is asked for, and tells the header notices at once', async () => {
    const dir = tempDir();
    const file = join(dir, 'c.csv');
    writeFileSync(file, 'SKU,Colour\nA,red\nB,blue\n');
    await expect(openCatalog(file, { map: { title: 'Name' } })).rejects.toThrow(`map title=Name: ${file} has no column "Name"`);
    const told: string[] = [];
    const catalog = await openCatalog(file, { onNotice: (notice) => told.push(notice.kind) });
    expect(told).toEqual(['loose-header', 'columns-not-read']);
    const drafts: Draft[] = await collect(catalog.drafts);
    expect(drafts.map((draft) => draft.values.sku)).toEqual(['A', 'B']);
    expect(told.filter((kind) => kind === 'empty-field')).toHaveLength(7);
  });

  it('counts listings for a preset, and tells no columns-not-read notice for it', async () => {
    const told: CatalogNotice[] = [];
    const catalog = await openCatalog(join(REPO_ROOT, 'fixtures', 'shopify-export.csv'), { preset: 'shopify', onNotice: (notice) => told.push(notice) });
    await collect(catalog.drafts);
    expect(told.every((notice) => notice.kind === 'empty-field')).toBe(true);
    expect(told.map((notice) => notice.message)).toContain(`${join(REPO_ROOT, 'fixtures', 'shopify-export.csv')}: 0 of 6 listings have marketplace`);
  });
});

describe('CLI notices', () => {
  const flat: ListingDefaults = { shape: 'flat', saved_defaults: false };
  type EmptyField = Extract<CatalogNotice, { kind: 'empty-field' }>;
  const empty = (field: EmptyField['field']): EmptyField => ({ kind: 'empty-field', source: 'c.csv', field, rows: 3, message: `c.csv: 0 of 3 rows have ${field}`, inHeader: false, column: field });

  it('prints a field no row gives when the shape sends it and it is content, or a setting with a column that a default covers', () => {
    expect(noticeMatters(empty('images_source'), flat)).toBe(true);
    expect(noticeMatters(empty('title'), flat)).toBe(false);
    expect(noticeMatters(empty('title'), { ...flat, shape: 'wrapped' })).toBe(true);
    expect(noticeMatters(empty('images_source'), { ...flat, shape: 'wrapped' })).toBe(false);
    // A setting with no column: a default fills it by design, or the run says once that it is missing.
    expect(noticeMatters(empty('fulfillment_policy_id'), flat)).toBe(false);
    expect(noticeMatters(empty('fulfillment_policy_id'), { ...flat, saved_defaults: true })).toBe(false);
    expect(noticeMatters(empty('marketplace'), { ...flat, marketplace: 'EBAY_US' })).toBe(false);
    // A setting whose column is empty in every row while a default fills it in its place.
    const column = { ...empty('fulfillment_policy_id'), inHeader: true };
    expect(noticeMatters(column, { ...flat, saved_defaults: true })).toBe(true);
    expect(noticeMatters(column, flat)).toBe(false);
    const { inHeader: _json, ...renamed } = { ...empty('marketplace'), column: 'Market' };
    expect(noticeMatters(renamed, { ...flat, marketplace: 'EBAY_US' })).toBe(true);
  });

  it('prints each notice once, with a hint when the column is missing, and escapes control characters', () => {
    const lines: string[] = [];
    const print = noticePrinter(flat, (line) => lines.push(plain(line)));
    print(empty('images_source'));
    print(empty('images_source'));
    print({ kind: 'columns-not-read', source: 'c.csv', columns: ['x'], message: 'c.csv: 1 column not read: "x\u009b"' });
    expect(lines).toEqual(['notice: c.csv: 0 of 3 rows have images_source; name its column with --map images_source=COLUMN', 'notice: c.csv: 1 column not read: "x\\u009b"']);
    expect(plain(noticeLine({ kind: 'loose-header', source: 'c.csv', matches: [], message: 'm\u001b' }))).toBe('notice: m\\u001b');
  });
});
