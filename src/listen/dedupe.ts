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
