import { describe, expect, it } from 'vitest';
import { columnsNotRead, createRecordMapper, mapRecords } from '../../../src/catalog/mapping/index.js';
import { parseMapFlags, parseMappingJson } from '../../../src/catalog/mapping/fields.js';
import { checkHeader } from '../../../src/catalog/mapping/header.js';
import type { CatalogRecord } from '../../../src/catalog/types.js';
import type { RecordItem } from '../../../src/catalog/read-records.js';
import { UsageError } from '../../../src/errors.js';
import { thrown } from '../../helpers/errors.js';
import { collect } from '../../helpers/sources-collect.js';

const at = (line: number) => ({ source: 'catalog.csv', line });
const rec = (fields: Record<string, unknown>, line = 2): CatalogRecord => ({ location: at(line), fields });

async function* feed(items: RecordItem[]): AsyncIterable<RecordItem> {
  for (const item of items) yield await Promise.resolve(item);
}

describe('default mapping', () => {
  const map = createRecordMapper();

  it('takes columns named as the API fields, and ignores unknown columns', () => {
    const draft = map(rec({ sku: 'A1', title: 'Mug', marketplace: 'EBAY_US', merchant_location_key: 'wh', fulfillment_policy_id: 'f', payment_policy_id: 'p', return_policy_id: 'r', colour: 'red' }));
    expect(draft).toEqual({
      location: at(2),
      values: { sku: 'A1', title: 'Mug', marketplace: 'EBAY_US', merchant_location_key: 'wh', fulfillment_policy_id: 'f', payment_policy_id: 'p', return_policy_id: 'r' },
      issues: [],
    });
  });

  it('treats empty and blank cells as absent, and trims values', () => {
    expect(map(rec({ sku: '  A1 ', title: '', marketplace: '   ', images_source: '' })).values).toEqual({ sku: 'A1' });
  });

  it('nests dotted headers under overrides', () => {
    expect(map(rec({ sku: 'A', 'overrides.condition': 'NEW', 'overrides.colour': 'red', 'overrides.size': '' })).values).toEqual({
      sku: 'A',
      overrides: { condition: 'NEW', colour: 'red' },
    });
  });

  it('splits one list cell on | (or the given separator)', () => {
    expect(map(rec({ sku: 'A', images_source: 'https://x/1.jpg| https://x/2.jpg ||' })).values.images_source).toEqual(['https://x/1.jpg', 'https://x/2.jpg']);
    const semi = createRecordMapper({ listSeparator: ';' });
    expect(semi(rec({ sku: 'A', images_source: 'a;b' })).values.images_source).toEqual(['a', 'b']);
  });

  it('gathers numbered list columns in number order, not column order', () => {
    const draft = map(rec({ sku: 'A', 'images_source.10': 'j', 'images_source.2': 'b', 'images_source.1': 'a', 'images_source.3': '' }));
    expect(draft.values.images_source).toEqual(['a', 'b', 'j']);
  });

  it('reads JSON records in the API nesting: arrays, overrides objects, numbers as text', () => {
    const draft = map(rec({ sku: 1234, images_source: ['https://x/1.jpg', ' '], overrides: { condition: 'NEW', count: 3, empty: '' }, title: null }));
    expect(draft.values).toEqual({ sku: '1234', images_source: ['https://x/1.jpg'], overrides: { condition: 'NEW', count: 3 } });
    expect(draft.issues).toEqual([]);
  });

  it('accepts a string list in JSON too', () => {
    expect(map(rec({ sku: 'A', images_source: 'https://x/1.jpg|https://x/2.jpg' })).values.images_source).toHaveLength(2);
  });

  it('reports values of the wrong kind as field issues', () => {
    const draft = map(rec({ sku: { id: 1 }, title: true, images_source: ['ok', 5, { url: 'x' }], overrides: 'NEW' }));
    expect(draft.issues).toEqual([
      { path: 'sku', message: 'must be text, not an object' },
      { path: 'title', message: 'must be text, not a boolean' },
      { path: 'images_source[2]', message: 'must be text, not an object' },
      { path: 'overrides', message: 'is text, not an object of override values: give each override a column (or key) of its own, e.g. overrides.condition' },
    ]);
    expect(draft.values.images_source).toEqual(['ok', '5']);
    expect(map(rec({ sku: 'A', overrides: [1] })).issues).toEqual([{ path: 'overrides', message: 'must be an object of override values, e.g. {"condition": "NEW"}' }]);
  });
});

describe('renames (--map, --mapping)', () => {
  it('takes a mapped field from its column and no longer from the default one', () => {
    const map = createRecordMapper({ map: parseMapFlags(['sku=Variant SKU', 'title=Name', 'overrides.condition=Cond']) });
    const draft = map(rec({ 'Variant SKU': 'V1', sku: 'ignored', Name: 'Mug', Cond: 'USED', 'overrides.condition': 'NEW' }));
    expect(draft.values).toEqual({ sku: 'V1', title: 'Mug', overrides: { condition: 'USED' } });
  });

  it('maps a list field to one cell or to numbered columns of the mapped name', () => {
    const map = createRecordMapper({ map: { images_source: 'Image' } });
    expect(map(rec({ sku: 'A', Image: 'a|b' })).values.images_source).toEqual(['a', 'b']);
    expect(map(rec({ sku: 'A', 'Image.2': 'b', 'Image.1': 'a' })).values.images_source).toEqual(['a', 'b']);
  });

  it('follows a dotted path into nested JSON objects', () => {
    const map = createRecordMapper({ map: { sku: 'meta.barcode', images_source: 'images' } });
    expect(map(rec({ meta: { barcode: '0123' }, images: ['https://x/a.jpg'] })).values).toEqual({ sku: '0123', images_source: ['https://x/a.jpg'] });
  });

  it('refuses a dotted path that meets a value other than an object on its way, at the field, rather than reading it as absent', () => {
    const map = createRecordMapper({ map: { sku: 'meta.barcode', images_source: 'images.uri', 'overrides.condition': 'state.code' } });
    const draft = map(rec({ meta: 'n/a', images: [{ uri: 'https://x/a.jpg' }], state: { code: { deep: 1 } } }));
    expect(draft.values).toEqual({ overrides: { condition: { deep: 1 } } });
    expect(draft.issues).toEqual([
      { path: 'sku', message: 'read from "meta.barcode", but "meta" is a string, not an object holding "barcode"' },
      { path: 'images_source', message: 'read from "images.uri", but "images" is a list, not an object holding "uri"' },
    ]);
    expect(map(rec({ sku: 'A', images: { uri: 'https://x/b.jpg' }, state: { code: 'NEW' }, meta: { barcode: 'B' } })).issues).toEqual([]);
    // Absent or null on the way is a field the record leaves out, as before.
    expect(map(rec({ meta: null, state: {} }))).toMatchObject({ values: {}, issues: [] });
  });

  it('reads a list path LIST[].KEY into images_source: the text at KEY (a dotted path too) of each object of the list', () => {
    const map = createRecordMapper({ map: { sku: 'key', images_source: 'images[].url' } });
    const images = [{ url: 'https://x/a.jpg', dimensions: { w: 1 } }, { url: ' https://x/b.jpg ' }];
    expect(map(rec({ key: 'A', images }))).toMatchObject({ values: { sku: 'A', images_source: ['https://x/a.jpg', 'https://x/b.jpg'] }, issues: [] });
    const nested = createRecordMapper({ map: { images_source: 'master.images[].source.href' } });
    expect(nested(rec({ sku: 'A', master: { images: [{ source: { href: 'https://x/c.jpg' } }] } })).values.images_source).toEqual(['https://x/c.jpg']);
    // A record's own key of that very name is read as it is, as for a dotted key.
    expect(map(rec({ key: 'A', 'images[].url': 'https://x/d.jpg' })).values.images_source).toEqual(['https://x/d.jpg']);
    // The list is absent, null or empty: the record leaves the field out.
    for (const list of [undefined, null, []]) expect(map(rec({ key: 'A', images: list }))).toMatchObject({ values: { sku: 'A' }, issues: [] });
    expect(columnsNotRead(['key', 'images', 'name'], { sku: 'key', images_source: 'images[].url' })).toEqual(['name']);
  });

  it('refuses, at each item, a list path that is not there or gives no text: no image is left out in silence', () => {
    const map = createRecordMapper({ map: { sku: 'key', images_source: 'images[].url' } });
    const draft = map(rec({ key: 'A', images: [{ url: 'https://x/a.jpg' }, { uri: 'https://x/b.jpg' }, 'https://x/c.jpg', { url: 5 }, { url: { href: 'x' } }] }));
    expect(draft.values).toEqual({ sku: 'A', images_source: ['https://x/a.jpg'] });
    expect(draft.issues).toEqual([
      { path: 'images_source[1]', message: 'read from "images[].url", but item 1 of "images" has no "url"' },
      { path: 'images_source[2]', message: 'read from "images[].url", but item 2 of "images" is a string, not an object holding "url"' },
      { path: 'images_source[3]', message: 'read from "images[].url", but "url" of item 3 of "images" is a number, not text' },
      { path: 'images_source[4]', message: 'read from "images[].url", but "url" of item 4 of "images" is an object, not text' },
    ]);
    expect(map(rec({ key: 'A', images: { url: 'https://x/a.jpg' } })).issues).toEqual([{ path: 'images_source', message: 'read from "images[].url", but "images" is an object, not a list' }]);
    const deep = createRecordMapper({ map: { images_source: 'media.images[].src.href' } });
    expect(deep(rec({ sku: 'A', media: ['x'] })).issues).toEqual([{ path: 'images_source', message: 'read from "media.images[].src.href", but "media" is a list, not an object holding "images"' }]);
    expect(deep(rec({ sku: 'A', media: { images: [{ src: 'x' }] } })).issues).toEqual([{ path: 'images_source[0]', message: 'read from "media.images[].src.href", but item 0 of "media.images" holds a string at "src", not an object' }]);
  });

  it('refuses a list path for a field of one value, at that field, rather than reading it as absent', () => {
    const map = createRecordMapper({ map: { title: 'names[].en', 'overrides.condition': 'states[].code' } });
    expect(map(rec({ sku: 'A', names: [{ en: 'Mug' }], states: [{ code: 'NEW' }] })).issues).toEqual([
      { path: 'title', message: 'read from "names[].en", a value from each item of a list: only images_source reads a list path (LIST[].KEY)' },
      { path: 'overrides.condition', message: 'read from "states[].code", a value from each item of a list: only images_source reads a list path (LIST[].KEY)' },
    ]);
    expect(map(rec({ sku: 'A' })).issues).toEqual([]);
  });

  it('rejects an unknown target field before reading, with a did-you-mean', () => {
    const error = thrown(UsageError, () => parseMapFlags(['skuu=SKU']));
    expect(error.message).toBe('map skuu=SKU: "skuu" is not a listing field');
    expect(error.setting).toEqual({ key: 'map', value: 'skuu=SKU' });
    expect(error.hint).toContain('did you mean sku?');
    expect(() => parseMapFlags(['sku'])).toThrow(/expected field=Column/);
    expect(() => parseMapFlags(['overrides.=X'])).toThrow(UsageError);
    expect(parseMapFlags(['overrides.colour=Colour'])).toEqual({ 'overrides.colour': 'Colour' });
  });

  it('reads a mapping file of field -> column and checks it the same way', () => {
    expect(parseMappingJson('{"sku": "Variant SKU", "images_source": "Image Src"}', 'm.json')).toEqual({ sku: 'Variant SKU', images_source: 'Image Src' });
    expect(() => parseMappingJson('{"sku": 3}', 'm.json')).toThrow(/column for sku must be a non-empty string/);
    expect(() => parseMappingJson('[1]', 'm.json')).toThrow(/expected a JSON object/);
    expect(() => parseMappingJson('{', 'm.json')).toThrow(/not valid JSON/);
    expect(() => parseMappingJson('{"titel": "Name"}', 'm.json')).toThrow(/"titel" is not a listing field/);
  });

  it('refuses a mapping file naming one field twice, which JSON.parse would read as the last column in silence', () => {
    expect(() => parseMappingJson('{"sku": "ID", "title": "Alt", "title": "Name"}', 'm.json')).toThrow(/m\.json: holds the key "title" twice in one object/);
    expect(() => parseMappingJson('{"sku": "ID", "\\u0074itle": "Alt", "title": "Name"}', 'm.json')).toThrow(/holds the key "title" twice/);
  });

  it('reads a mapping file saved with a byte order mark, and refuses one nested past 64 levels', () => {
    expect(parseMappingJson('\ufeff{"sku": "ID"}', 'm.json')).toEqual({ sku: 'ID' });
    expect(() => parseMappingJson(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'm.json')).toThrow(/m\.json: nests objects and arrays deeper than 64 levels/);
  });
});

describe('a JSON record giving one field both as a dotted key and inside a nested object', () => {
  // Before: the dotted key won (or the overrides object did) and the other value was dropped, the row valid.
  const twice = (first: string, second: string) => `given twice, as ${first} and as ${second}, so one of its values would be lost`;

  it.each([
    ['dotted key first', { sku: 'B', 'overrides.price': '1', overrides: { price: '2' } }],
    ['nested object first', { sku: 'B', overrides: { price: '2' }, 'overrides.price': '1' }],
  ])('refuses an overrides key given both ways (%s), naming the field and both places', (_order, fields) => {
    const draft = createRecordMapper()(rec(fields));
    expect(draft.issues).toEqual([{ path: 'overrides.price', message: twice('the key "overrides.price"', '"price" inside "overrides"') }]);
  });

  it('refuses a dotted key that would replace a nested object of the same key', () => {
    const draft = createRecordMapper()(rec({ sku: 'B', overrides: { a: { b: 1 } }, 'overrides.a': '2' }));
    expect(draft.issues).toEqual([{ path: 'overrides.a', message: twice('the key "overrides.a"', '"a" inside "overrides"') }]);
  });

  it('refuses an overrides key mapped to a column when the overrides object also holds it', () => {
    const map = createRecordMapper({ map: parseMapFlags(['overrides.price=Price']) });
    const draft = map(rec({ sku: 'A', Price: '1', overrides: { price: '2' } }));
    expect(draft.issues).toEqual([{ path: 'overrides.price', message: twice('the key "Price"', '"price" inside "overrides"') }]);
  });

  it('refuses a field mapped to a dotted path when the record also has that dotted key', () => {
    const map = createRecordMapper({ map: { sku: 'meta.barcode', images_source: 'media.images' } });
    const draft = map(rec({ 'meta.barcode': '1', meta: { barcode: '2' }, 'media.images': ['a'], media: { images: ['b'] } }));
    expect(draft.issues).toEqual([
      { path: 'sku', message: twice('the key "meta.barcode"', '"barcode" inside "meta"') },
      { path: 'images_source', message: twice('the key "media.images"', '"images" inside "media"') },
    ]);
  });

  it('reads a field given once, or given twice where one place is empty, or reached twice at the same place', () => {
    const map = createRecordMapper();
    expect(map(rec({ sku: 'A', 'overrides.price': '1', overrides: { colour: 'red' } }))).toMatchObject({ values: { overrides: { colour: 'red', price: '1' } }, issues: [] });
    expect(map(rec({ sku: 'A', 'overrides.price': '1', overrides: { price: '' } }))).toMatchObject({ values: { overrides: { price: '1' } }, issues: [] });
    expect(map(rec({ sku: 'A', 'overrides.price': null, overrides: { price: '2' } }))).toMatchObject({ values: { overrides: { price: '2' } }, issues: [] });
    const samePlace = createRecordMapper({ map: parseMapFlags(['overrides.price=overrides.price']) });
    expect(samePlace(rec({ sku: 'A', overrides: { price: '2' } }))).toMatchObject({ values: { overrides: { price: '2' } }, issues: [] });
  });
});

describe('header check (CSV, TSV)', () => {
  it('reports a mapped column missing from the header once, clearly', () => {
    expect(() => checkHeader(['Handle', 'Variant Sku'], { sku: 'Variant SKU' }, 'shop.csv')).toThrow(
      expect.objectContaining({ message: 'map sku=Variant SKU: shop.csv has no column "Variant SKU"', hint: 'did you mean "Variant Sku"?', setting: { key: 'map', value: 'sku=Variant SKU' } }),
    );
  });

  it('asks for a mapping when no column gives the SKU, suggesting a likely one', () => {
    expect(() => checkHeader(['Item SKU', 'Name'], {}, 'c.csv')).toThrow(expect.objectContaining({ message: 'c.csv has no sku column' }));
    const error = thrown(UsageError, () => checkHeader(['Handle', 'Title', 'Variant SKU'], {}, 'c.csv'));
    expect(error.hint).toContain("with map 'sku=Variant SKU'");
    expect(error.hint).toContain('try preset shopify');
  });

  // Before: `map sku="SKU $(touch x)"`: pasted, the shell ran what the catalog's header held.
  it('quotes the likely column for a shell: what its name holds is never run', () => {
    const error = thrown(UsageError, () => checkHeader(['Title', 'SKU $(touch x) `id`'], {}, 'c.csv'));
    expect(error.hint).toContain("with map 'sku=SKU $(touch x) `id`' (its columns");
  });

  it('accepts numbered columns for a mapped list field', () => {
    expect(() => checkHeader(['sku', 'Image.1'], { images_source: 'Image' }, 'c.csv')).not.toThrow();
  });

  it('runs on the first readable record of a CSV, failing the stream before any draft', async () => {
    const items: RecordItem[] = [rec({ 'Item Code': 'A' })];
    await expect(collect(mapRecords(feed(items), { fixedColumns: true }))).rejects.toThrow(/has no sku column/);
    // JSON records may differ from each other: no header check.
    expect(await collect(mapRecords(feed(items)))).toHaveLength(1);
  });
});

describe('mapRecords', () => {
  it('turns a parser error into a draft with a (record) issue, keeping order', async () => {
    const items: RecordItem[] = [rec({ sku: 'A' }, 2), { location: at(3), error: 'unclosed quote' }, rec({ sku: 'B' }, 5)];
    const drafts = await collect(mapRecords(feed(items), { fixedColumns: true }));
    expect(drafts.map((d) => [d.location.line, d.values.sku, d.issues])).toEqual([
      [2, 'A', []],
      [3, undefined, [{ path: '(record)', message: 'unclosed quote' }]],
      [5, 'B', []],
    ]);
  });

  it('makes the column plan once for CSV and per record for JSON', async () => {
    const json: RecordItem[] = [rec({ sku: 'A', images_source: ['a'] }), rec({ sku: 'B', 'images_source.1': 'b' })];
    const drafts = await collect(mapRecords(feed(json)));
    expect(drafts.map((d) => d.values.images_source)).toEqual([['a'], ['b']]);
  });
});
