import { describe, expect, it } from 'vitest';
import { createRecordMapper } from '../../../src/catalog/mapping/index.js';
import type { CatalogRecord } from '../../../src/catalog/types.js';

const rec = (fields: Record<string, unknown>): CatalogRecord => ({ location: { source: 'c.ndjson', record: 1 }, fields });

describe('column plans of JSON records (made again only when the numbered or dotted columns change)', () => {
  it('follows each record’s own numbered list and dotted overrides columns, in any sequence', () => {
    const map = createRecordMapper({ map: { images_source: 'img', 'overrides.brand': 'Brand' } });
    const records = [
      rec({ sku: 'A', img: 'a', 'img.2': 'c', 'img.1': 'b' }),
      rec({ sku: 'B', img: ['x'] }),
      rec({ sku: 'C', 'img.1': 'b', 'overrides.colour': 'red', Brand: 'Acme' }),
      rec({ sku: 'D', 'img.1': 'b', 'overrides.colour': 'blue' }),
      rec({ sku: 'E', 'img.10': 'j', 'img.9': 'i', 'overrides.size': 'L', overrides: { condition: 'NEW' } }),
      rec({ sku: 'F' }),
      // Same columns joined differently must not be taken for the same plan.
      rec({ sku: 'G', 'overrides.a': '1', 'overrides.b': '2' }),
      rec({ sku: 'H', 'overrides.a\u0000overrides.b': '3' }),
    ];
    expect(records.map((record) => map(record).values)).toEqual([
      { sku: 'A', images_source: ['a', 'b', 'c'] },
      { sku: 'B', images_source: ['x'] },
      { sku: 'C', images_source: ['b'], overrides: { brand: 'Acme', colour: 'red' } },
      { sku: 'D', images_source: ['b'], overrides: { colour: 'blue' } },
      { sku: 'E', images_source: ['i', 'j'], overrides: { condition: 'NEW', size: 'L' } },
      { sku: 'F' },
      { sku: 'G', overrides: { a: '1', b: '2' } },
      { sku: 'H', overrides: { 'a\u0000overrides.b': '3' } },
    ]);
  });

  it('an overrides object holding only __proto__ gives no overrides', () => {
    const map = createRecordMapper();
    expect(map(rec({ sku: 'A', overrides: JSON.parse('{"__proto__": {"condition": "NEW"}}') as unknown })).values).toEqual({ sku: 'A' });
  });
});
