import { UsageError } from '../errors.js';
import { FNV_OFFSET, FNV_PRIME, fnv1a32Bytes } from '../fnv1a.js';

/** Shard `index` (1-based) of `count`, from `--shard K/N`. */
export interface Shard {
  index: number;
  count: number;
}

const SHARD_PATTERN = /^(\d{1,6})\/(\d{1,6})$/;

/** Read `K/N` (1 <= K <= N), e.g. `2/3`; a UsageError otherwise. */
export function parseShard(text: string): Shard {
  const match = SHARD_PATTERN.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    throw new UsageError((name) => `${name('shard')} must be K/N with 1 <= K <= N, or auto, got "${text}"`, {
      hint: (name) => `for a CI matrix of three jobs use ${name('shard')} 1/3, ${name('shard')} 2/3 and ${name('shard')} 3/3, or ${name('shard')} auto to read the job's index from the CI`,
      setting: { key: 'shard', value: text },
    });
  }
  return { index, count };
}

/**
 * True when the SKU belongs to the shard: `fnv1a32(utf8(sku)) % count === index - 1`, with 32-bit FNV-1a
 * (offset basis 0x811c9dc5, prime 0x01000193) over the UTF-8 bytes of the SKU. The hash depends on nothing but the
 * SKU, so every machine of a matrix agrees, run after run, and every SKU is in exactly one shard.
 */
export function inShard(sku: string, shard: Shard): boolean {
  return shard.count === 1 || fnv1a32(sku) % shard.count === shard.index - 1;
}

/** 32-bit FNV-1a of the UTF-8 bytes of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return fnv1a32Bytes(Buffer.from(text, 'utf8'));
    hash = Math.imul(hash ^ c, FNV_PRIME);
  }
  return hash >>> 0;
}
