import { createHash } from 'node:crypto';

const digest = (data: Buffer): string => createHash('sha256').update(data).digest('base64');

/**
 * What tells a redelivery: the event's id; for a signed callback, the signed bytes too (the same timestamp and body
 * again is a replay of one delivery, whatever id an unsigned header such as `Webhook-Id` gives it); an unsigned
 * callback without an id is never a duplicate (anyone could change a byte of it). Each key is a digest of 44
 * characters: an id is the sender's text, as long as a body may be, and thousands of them are remembered.
 */
export function eventKeys(id: string | undefined, body: Buffer, signedAt: number | undefined): string[] {
  const keys: string[] = [];
  if (signedAt !== undefined) keys.push(`signed:${signedAt}:${digest(body)}`);
  // UTF-16 code units, lossless: as UTF-8, two ids differing only by a lone surrogate would be one (U+FFFD).
  if (id !== undefined) keys.push(`id:${digest(Buffer.from(id, 'utf16le'))}`);
  return keys;
}

/**
 * The ids of the callbacks seen lately, to answer a redelivered callback once: a set that forgets its oldest id
 * beyond `capacity`, so memory stays bounded however long the receiver runs.
 */
export class RecentIds {
  // A Set iterates in insertion order: its first entry is the oldest.
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  /** True when `id` was seen (it is then a duplicate); otherwise it is remembered. */
  seen(id: string): boolean {
    if (this.ids.has(id)) return true;
    this.ids.add(id);
    if (this.ids.size > this.capacity) {
      const oldest = this.ids.values().next();
      if (!oldest.done) this.ids.delete(oldest.value);
    }
    return false;
  }

  /**
   * True when one of `keys` (the names of one event) was seen: then none is remembered anew, so a duplicate cannot
   * teach a name to the set. Otherwise all are remembered.
   */
  seenAny(keys: readonly string[]): boolean {
    if (keys.some((key) => this.ids.has(key))) return true;
    for (const key of keys) this.seen(key);
    return false;
  }

  get size(): number {
    return this.ids.size;
  }
}
