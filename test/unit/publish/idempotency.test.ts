import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { contentHash, idempotencyKey, idempotencyKeyForHash } from '../../../src/publish/idempotency.js';

const body = JSON.stringify({ sku: 'SKU-1', marketplace: 'EBAY_US', overrides: { condition: 'NEW' } });

describe('idempotency', () => {
  it('is lst- and 40 hex digits of the body SHA-256', () => {
    const key = idempotencyKey(body);
    expect(key).toMatch(/^lst-[0-9a-f]{40}$/);
    expect(key).toBe(`lst-${createHash('sha256').update(body).digest('hex').slice(0, 40)}`);
  });

  it('is stable: same body, same key (a known value pins it across versions and runs)', () => {
    expect(idempotencyKey(body)).toBe(idempotencyKey(JSON.stringify(JSON.parse(body))));
    expect(idempotencyKey('')).toBe('lst-e3b0c44298fc1c149afbf4c8996fb92427ae41e4');
  });

  it.each([
    ['another sku', body.replace('SKU-1', 'SKU-2')],
    ['another condition', body.replace('NEW', 'USED')],
    ['one more space', body + ' '],
    ['non-ASCII', body.replace('SKU-1', 'SKU-é')],
  ])('changes with the content: %s', (_name, other) => {
    expect(idempotencyKey(other)).not.toBe(idempotencyKey(body));
    expect(contentHash(other)).not.toBe(contentHash(body));
  });

  it('key and content hash are the same digest', () => {
    expect(idempotencyKeyForHash(contentHash(body))).toBe(idempotencyKey(body));
  });

  it('is fast enough for 30k rows/s with room to spare', () => {
    const bodies = Array.from({ length: 30_000 }, (_, i) => body.replace('SKU-1', `SKU-${i}`));
    let best = Infinity;
    for (let round = 0; round < 3; round++) {
      const start = performance.now();
      for (const b of bodies) idempotencyKey(b);
      best = Math.min(best, performance.now() - start);
    }
    // 30k keys must take well under the second a 30k rows/s run has for them (typically ~60 ms here); the best of
    // three rounds keeps a busy machine from failing it.
    expect(best).toBeLessThan(500);
  });
});
