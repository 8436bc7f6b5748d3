/** Items each due at a time, taken earliest first: a binary min-heap, for rows waiting to be sent again. */
export class DueQueue<T> {
  readonly #items: T[] = [];
  readonly #at: number[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(item: T, at: number): void {
    const items = this.#items;
    const times = this.#at;
    let i = items.length;
    items.push(item);
    times.push(at);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((times[parent] as number) <= at) break;
      items[i] = items[parent] as T;
      times[i] = times[parent] as number;
      i = parent;
    }
    items[i] = item;
    times[i] = at;
  }

  /** The earliest time any item is due, or undefined when empty. */
  nextDueAt(): number | undefined {
    return this.#at[0];
  }

  /** The earliest item when it is due by `now`, without taking it. */
  peekDue(now: number): T | undefined {
    const at = this.#at[0];
    return at !== undefined && at <= now ? this.#items[0] : undefined;
  }

  /** Take the earliest item. */
  pop(): T | undefined {
    const items = this.#items;
    const times = this.#at;
    const top = items[0];
    const lastItem = items.pop();
    const lastAt = times.pop();
    if (items.length === 0 || lastItem === undefined || lastAt === undefined) return top;
    const n = items.length;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && (times[child + 1] as number) < (times[child] as number)) child++;
      if ((times[child] as number) >= lastAt) break;
      items[i] = items[child] as T;
      times[i] = times[child] as number;
      i = child;
    }
    items[i] = lastItem;
    times[i] = lastAt;
    return top;
  }
}
