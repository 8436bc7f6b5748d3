import type { RowOutcome } from './outcome.js';
import { Fifo } from './fifo.js';

/**
 * Outcomes finished out of order, handed on in input order: a ring of `capacity` slots indexed by row number.
 * Reading pauses while it is `full` (one slow row holds back at most `capacity` finished ones), so memory stays
 * flat however long the input. Not `ordered`, outcomes are handed on as they finish (a stream, which commits by
 * offset, not by position): one slow row then holds back nothing.
 */
export class ReorderBuffer {
  readonly #slots: (RowOutcome | undefined)[];
  readonly #capacity: number;
  readonly #finished: Fifo<RowOutcome> | undefined;
  #head = 0;
  #read = 0;

  constructor(capacity: number, ordered = true) {
    this.#capacity = capacity;
    this.#slots = ordered ? new Array<RowOutcome | undefined>(capacity).fill(undefined) : [];
    this.#finished = ordered ? undefined : new Fifo<RowOutcome>();
  }

  /** Rows admitted so far. */
  get read(): number {
    return this.#read;
  }

  /** Every admitted row has been taken. */
  get empty(): boolean {
    return this.#head === this.#read;
  }

  /** No room for another row until the oldest is finished and taken. */
  get full(): boolean {
    return this.#read - this.#head >= this.#capacity;
  }

  /** A row read from the input: its index. */
  admit(): number {
    return this.#read++;
  }

  finish(index: number, outcome: RowOutcome): void {
    if (this.#finished !== undefined) this.#finished.push(outcome);
    else this.#slots[index % this.#capacity] = outcome;
  }

  /** The next outcome in input order (or, not ordered, the next finished), when it is finished. */
  take(): RowOutcome | undefined {
    if (this.#head === this.#read) return undefined;
    if (this.#finished !== undefined) {
      const outcome = this.#finished.take();
      if (outcome !== undefined) this.#head++;
      return outcome;
    }
    const slot = this.#head % this.#capacity;
    const outcome = this.#slots[slot];
    if (outcome === undefined) return undefined;
    this.#slots[slot] = undefined;
    this.#head++;
    return outcome;
  }
}
