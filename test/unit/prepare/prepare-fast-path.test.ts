import { describe, expect, it } from 'vitest';
import { createPreparer } from '../../../src/prepare/preparer.js';
import { isAbsoluteHttpUrl } from '../../../src/prepare/checks.js';
import { SkuRegistry } from '../../../src/prepare/sku-registry.js';
import { requestSchemaFor } from '../../../src/contract/schemas.js';
import type { Location } from '../../../src/errors.js';
import type { Draft, DraftValues } from '../../../src/catalog/types.js';
import type { ListingDefaults } from '../../../src/prepare/types.js';

/** What isAbsoluteHttpUrl answered before it had a fast path: the URL parser decides. */
function parserSays(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

describe('isAbsoluteHttpUrl', () => {
  it('answers as the URL parser does, for every mix of scheme, host and rest', () => {
    const schemes = ['http://', 'https://', 'HTTP://', 'Https://', 'http:/', 'http:', 'ftp://', 'https:///', ' https://', ''];
    const hosts = [
      'a.b',
      'images.example.com',
      'x',
      'a-b.c-d',
      '-a-.com',
      'a--b.com',
      'xn--nxasmq6b.com',
      'xn--a.com',
      'a..b',
      '.a.b',
      'a.b.',
      '1.2.3.4',
      '999.1.1.1',
      'foo.123',
      'foo.0x1',
      '0x7f.1',
      'a.b1',
      'a_b.com',
      'A.COM',
      '[::1]',
      '[::1',
      'a.b:80',
      'a.b:x',
      'u@a.b',
      '%41.com',
      'exa mple.com',
      'ex\tample.com',
      'ex\nample.com',
      'ü.com',
      '',
    ];
    const rests = ['', '/', '/p/q.jpg', '/x y', '/%zz', '?q=1', '#f', '\\x', '/ü', '/\ud800', ' ', ':443/x'];
    let fast = 0;
    for (const scheme of schemes) {
      for (const host of hosts) {
        for (const rest of rests) {
          const value = `${scheme}${host}${rest}`;
          expect(isAbsoluteHttpUrl(value), JSON.stringify(value)).toBe(parserSays(value));
          if (parserSays(value)) fast++;
        }
      }
    }
    expect(fast).toBeGreaterThan(500);
  });
});

describe('SkuRegistry', () => {
  it('agrees with a Map on a run with duplicates, unicode, long SKUs, several sources and large numbers', () => {
    const registry = new SkuRegistry();
    const reference = new Map<string, Location>();
    let state = 42;
    const next = (): number => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state;
    };
    const kinds: Array<(source: string, n: number) => Location> = [
      (source, n) => ({ source, line: n }),
      (source, n) => ({ source, record: n }),
      (source) => ({ source }),
      (source, n) => ({ source, line: 2 ** 32 + n }),
    ];
    let duplicates = 0;
    const wrong: unknown[] = [];
    for (let i = 0; i < 150_000; i++) {
      const n = next();
      const pick = n % 1000;
      const sku = pick < 5 ? `ÆØÅ-${n % 300}` : pick < 7 ? `L${'x'.repeat(250 + (n % 20))}${n % 50}` : `SKU-${n % 120_000}`;
      const source = `part-${Math.floor(i / 20_000)}.csv`;
      const location = kinds[i < 100_000 ? Math.floor(i / 40_000) % 2 : (n >>> 8) % 4]!(source, i + 2);
      const expected = reference.get(sku);
      if (expected === undefined) reference.set(sku, location);
      else duplicates++;
      const got = registry.firstSeen(sku, location);
      if (got?.source !== expected?.source || got?.line !== expected?.line || got?.record !== expected?.record) wrong.push([sku, got, expected]);
    }
    expect(wrong).toEqual([]);
    expect(registry.size).toBe(reference.size);
    expect(duplicates).toBeGreaterThan(10_000);
  });
});

describe('SkuRegistry encoding', () => {
  it('is exact for prefixes of each other, backward and far jumps of numbers, and across chunk boundaries', () => {
    const registry = new SkuRegistry();
    const reference = new Map<string, Location>();
    const wrong: unknown[] = [];
    const see = (sku: string, location: Location): void => {
      const expected = reference.get(sku);
      if (expected === undefined) reference.set(sku, location);
      const got = registry.firstSeen(sku, location);
      if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push([sku, got, expected]);
    };
    const lines = [1, 2, 3, 2, 200, 20_000, 3_000_000, 4_000_000_000, 5, 0, 4_294_967_295];
    let n = 0;
    for (const sku of ['A', 'AB', 'ABC', '', 'AB', 'ABD', 'B', 'ABC', 'A', 'ü', 'üü', 'ü']) see(sku, { source: 'p.csv', line: lines[n++ % lines.length]! });
    // About 6 MB of entries sharing little: several chunks, each starting a new group.
    for (let i = 0; i < 30_000; i++) see(`${(i * 7919) % 30_011}-${'x'.repeat(150 + (i % 90))}`, { source: 'big.csv', line: lines[i % lines.length]! + i });
    for (let i = 0; i < 30_000; i += 7) see(`${(i * 7919) % 30_011}-${'x'.repeat(150 + (i % 90))}`, { source: 'again.csv', line: i });
    for (let i = 0; i < 5_000; i++) see(`SKU-${String(i).padStart(7, '0')}`, i % 100 === 0 ? { source: `s${i}.json`, record: i } : { source: 'seq.csv', line: i + 2 });
    for (let i = 0; i < 5_000; i += 3) see(`SKU-${String(i).padStart(7, '0')}`, { source: 'x', line: 1 });
    expect(wrong).toEqual([]);
    expect(registry.size).toBe(reference.size);
  });
});

describe('preparer fast path', () => {
  let line = 1;
  const draft = (values: DraftValues): Draft => ({ location: { source: 'c.csv', line: ++line }, values, issues: [] });
  const full: DraftValues = {
    sku: 'A',
    marketplace: 'EBAY_US',
    images_source: ['https://img.example.com/a.jpg'],
    merchant_location_key: 'wh',
    fulfillment_policy_id: 'f',
    payment_policy_id: 'p',
    return_policy_id: 'r',
  };

  it('sends exactly what the schema outputs for the body, key order included', () => {
    const cases: Array<[ListingDefaults, DraftValues]> = [
      [{ shape: 'flat', saved_defaults: false }, full],
      [{ shape: 'flat', saved_defaults: false, condition: 'USED' }, { ...full, overrides: { colour: 'red' } }],
      [{ shape: 'flat', saved_defaults: false, condition: 'USED' }, { ...full, overrides: { colour: 'red', condition: 'NEW' } }],
      [{ shape: 'flat', saved_defaults: false, condition: ' USED ' }, full],
      [{ shape: 'flat', saved_defaults: true, marketplace: 'ebay_de' }, { sku: 'A' }],
      [{ shape: 'flat', saved_defaults: true, merchant_location_key: ' wh ' }, { sku: 'A', marketplace: 'EBAY_US' }],
      [{ shape: 'wrapped', saved_defaults: false }, { ...full, title: 'T' }],
      [{ shape: 'wrapped', saved_defaults: false, marketplace: 'EBAY_MOTORS_US' }, { sku: 'A', title: 'T' }],
    ];
    for (const [defaults, values] of cases) {
      const row = createPreparer(defaults)(draft(values));
      expect(row.kind, JSON.stringify([defaults, values])).toBe('ready');
      if (row.kind !== 'ready') continue;
      const again = requestSchemaFor(defaults.shape, defaults.saved_defaults).parse(row.request);
      expect(JSON.stringify(row.request)).toBe(JSON.stringify(again));
    }
    const withDefault = createPreparer({ shape: 'flat', saved_defaults: false, condition: 'USED' })(draft({ ...full, overrides: { colour: 'red' } }));
    expect(withDefault.kind === 'ready' && JSON.stringify(withDefault.request)).toContain('"overrides":{"condition":"USED","colour":"red"}');
  });

  it('does not change the draft it reads', () => {
    const overrides = { colour: 'red' };
    const values: DraftValues = { ...full, overrides };
    createPreparer({ shape: 'flat', saved_defaults: false, condition: 'USED' })(draft(values));
    expect(overrides).toEqual({ colour: 'red' });
    expect(values.overrides).toBe(overrides);
  });

  it('tells every row with a marketplace in the wrong form, not only the first', () => {
    const prepare = createPreparer({ shape: 'flat', saved_defaults: false });
    for (const sku of ['m1', 'm2']) {
      const row = prepare(draft({ ...full, sku, marketplace: 'ebay' }));
      expect(row.kind === 'invalid' && row.issues.map((issue) => issue.path)).toEqual(['marketplace']);
    }
    expect(prepare(draft({ ...full, sku: 'm3' })).kind).toBe('ready');
  });
});
