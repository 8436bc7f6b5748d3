import { Fifo } from '../publish/fifo.js';

/**
 * The live source the publishing engine reads: items pushed by the consumer, handed out in push order; a read
 * waits while there is none. Closing it ends the reading (items still queued are dropped: they were never sent,
 * so their offsets are never committed, and whoever reads the partition next gets them again).
 */
export class MessageFeed<T> implements AsyncIterableIterator<T> {
  readonly #queue = new Fifo<T>();
  #waiter: ((result: IteratorResult<T>) => void) | undefined;
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  get queued(): number {
    return this.#queue.size;
  }

  /** False once closed (the item is not taken). */
  push(item: T): boolean {
    if (this.#closed) return false;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter({ value: item, done: false });
    } else {
      this.#queue.push(item);
    }
    return true;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#queue.take() !== undefined);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.#queue.take();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
