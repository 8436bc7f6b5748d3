/**
 * A first-in first-out queue over an array with a moving head: O(1) push and take (amortised), no shifting per
 * take. The taken head is cut off once it is most of the array, so a queue that is never empty (a stream) does
 * not grow without end.
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, left in place; undefined when empty. */
  peek(): T | undefined {
    return this.#head === this.#items.length ? undefined : this.#items[this.#head];
  }

  /** The oldest item, or undefined when empty. */
  take(): T | undefined {
    if (this.#head === this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#items.length) {
      this.#items.length = 0;
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
