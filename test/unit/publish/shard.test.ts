import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { fnv1a32, inShard, parseShard } from '../../../src/publish/shard.js';

describe('parseShard', () => {
  it.each([
    ['1/1', { index: 1, count: 1 }],
    ['2/3', { index: 2, count: 3 }],
    ['3/3', { index: 3, count: 3 }],
    [' 10/12 ', { index: 10, count: 12 }],
  ])('%j -> %j', (text, shard) => {
    expect(parseShard(text)).toEqual(shard);
  });

  it.each(['0/3', '4/3', 'x/y', '1/0', '0/0', '1', '1/', '/3', '-1/3', '1.5/3', '1/3/5', '', '1 / 3'])('%j is a usage error', (text) => {
    expect(() => parseShard(text)).toThrow(UsageError);
  });
});

describe('fnv1a32', () => {
  // reference values of 32-bit FNV-1a
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('%j -> %i', (text, hash) => {
    expect(fnv1a32(text)).toBe(hash);
  });

  it('hashes the UTF-8 bytes of non-ASCII text', () => {
    // "é" is C3 A9 in UTF-8
    let h = 0x811c9dc5;
    for (const b of [0x53, 0xc3, 0xa9]) h = Math.imul(h ^ b, 0x01000193);
    expect(fnv1a32('Sé')).toBe(h >>> 0);
  });
});

describe('inShard', () => {
  it('puts every SKU of 10k in exactly one of 1/3, 2/3, 3/3, roughly balanced', () => {
    const shards = [parseShard('1/3'), parseShard('2/3'), parseShard('3/3')];
    const sizes = [0, 0, 0];
    for (let i = 0; i < 10_000; i++) {
      const sku = `SKU-${String(i).padStart(6, '0')}`;
      const hits = shards.map((s) => inShard(sku, s));
      expect(hits.filter(Boolean)).toHaveLength(1);
      sizes[hits.indexOf(true)]!++;
    }
    for (const size of sizes) {
      expect(size).toBeGreaterThan(3000);
      expect(size).toBeLessThan(3667);
    }
  });

  it('1/1 holds everything', () => {
    expect(['a', 'b', '', 'ü'].every((sku) => inShard(sku, { index: 1, count: 1 }))).toBe(true);
  });

  it('is stable: the same SKU always lands in the same shard (pinned)', () => {
    const shard = (sku: string) => [1, 2, 3].find((index) => inShard(sku, { index, count: 3 }));
    expect(shard('foobar')).toBe((0xbf9cf968 % 3) + 1);
  });
});
