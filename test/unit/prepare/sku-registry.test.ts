import { describe, expect, it } from 'vitest';
import { createPreparer } from '../../../src/prepare/index.js';
import { SkuRegistry } from '../../../src/prepare/sku-registry.js';
import type { PreparedRow } from '../../../src/prepare/types.js';

describe('SkuRegistry: a listing is found only by its own text', () => {
  it('finds a duplicate after a row whose marketplace cannot be packed (not ASCII) came between', () => {
    const registry = new SkuRegistry();
    expect(registry.firstSeen('A1', { source: 'c.csv', line: 2 }, 'EBAY_US')).toBeUndefined();
    // An unusable marketplace of another length, its first characters ASCII: it was half written over the prefix.
    expect(registry.firstSeen('Z9', { source: 'c.csv', line: 3 }, 'EBAY_ÜSXYZ')).toBeUndefined();
    expect(registry.firstSeen('A1', { source: 'c.csv', line: 4 }, 'EBAY_US')).toEqual({ source: 'c.csv', line: 2 });
    expect(registry.firstSeen('Z9', { source: 'c.csv', line: 5 }, 'EBAY_ÜSXYZ')).toEqual({ source: 'c.csv', line: 3 });
  });

  it('stays exact through table growth with such marketplaces among many rows', () => {
    const registry = new SkuRegistry();
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      expect(registry.firstSeen(`SKU-${i}`, { source: 'c.csv', line: i + 2 }, i % 1000 === 0 ? `EBAY_${'Ü'.repeat(1 + (i % 7))}` : 'EBAY_US')).toBeUndefined();
    }
    for (let i = 1; i < n; i += 997) {
      if (i % 1000 === 0) continue;
      expect(registry.firstSeen(`SKU-${i}`, { source: 'x', line: 1 }, 'EBAY_US')).toEqual({ source: 'c.csv', line: i + 2 });
    }
  });

  it('tells SKUs apart that differ only in a lone surrogate (UTF-8 would write each as U+FFFD)', () => {
    const registry = new SkuRegistry();
    expect(registry.firstSeen('A\ud800', { source: 'c.ndjson', line: 1 }, 'ebay')).toBeUndefined();
    expect(registry.firstSeen('A\udc00', { source: 'c.ndjson', line: 2 }, 'ebay')).toBeUndefined();
    expect(registry.firstSeen('A\ufffd', { source: 'c.ndjson', line: 3 }, 'ebay')).toBeUndefined();
    expect(registry.firstSeen('A\ud800', { source: 'c.ndjson', line: 4 }, 'ebay')).toEqual({ source: 'c.ndjson', line: 1 });
    expect(registry.firstSeen('A\ufffd', { source: 'c.ndjson', line: 5 }, 'ebay')).toEqual({ source: 'c.ndjson', line: 3 });
    // A pair is one character, packed as UTF-8 like any other.
    expect(registry.firstSeen('A\ud83d\ude00', { source: 'c.ndjson', line: 6 }, 'ebay')).toBeUndefined();
    expect(registry.firstSeen('A\ud83d\ude00', { source: 'c.ndjson', line: 7 }, 'ebay')).toEqual({ source: 'c.ndjson', line: 6 });
  });
});

describe('prepare: a duplicate listing is refused whatever rows come between', () => {
  it('refuses the second EBAY_US A1 after a row with an unusable marketplace', () => {
    let line = 1;
    const prepare = createPreparer({ shape: 'flat', saved_defaults: true });
    const row = (sku: string, marketplace: string): PreparedRow =>
      prepare({ location: { source: 'c.csv', line: ++line }, values: { sku, marketplace, images_source: ['https://x.example/1.jpg'] }, issues: [] });
    expect(row('A1', 'EBAY_US').kind).toBe('ready');
    expect(row('Z9', 'EBAY_ÜSXYZ').kind).toBe('invalid');
    const again = row('A1', 'EBAY_US');
    expect(again.kind).toBe('invalid');
    expect(again.kind === 'invalid' ? again.issues.map((i) => i.message) : []).toContain('duplicate SKU; first seen at c.csv:2');
  });
});
