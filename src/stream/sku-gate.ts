/**
 * One at a time per key: an item whose key is busy waits, in arrival order, until the item before it leaves. The
 * stream passes each SKU through it, so two changes of one SKU are never in flight at once and apply in order.
 */
export class KeyedGate<T> {
  /** Busy keys, with the items waiting behind the one in progress. */
  readonly #busy = new Map<string, T[]>();
  #waiting = 0;

  /** Items waiting behind another of their key. */
  get waiting(): number {
    return this.#waiting;
  }

  /** True when the item may go now (its key is now busy); false when it waits for `leave(key)`. */
  enter(key: string, item: T): boolean {
    const queue = this.#busy.get(key);
    if (queue === undefined) {
      this.#busy.set(key, []);
      return true;
    }
    queue.push(item);
    this.#waiting++;
    return false;
  }

  /** The item in progress for `key` is done: the next waiting one, which now holds the key, or undefined. */
  leave(key: string): T | undefined {
    const queue = this.#busy.get(key);
    if (queue === undefined) return undefined;
    const next = queue.shift();
    if (next === undefined) this.#busy.delete(key);
    else this.#waiting--;
    return next;
  }
}
