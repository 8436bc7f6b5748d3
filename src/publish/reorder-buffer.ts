import type { RowOutcome } from './outcome.js';

/**
 * Outcomes finished out of order, handed on in input order: a ring of `capacity` slots indexed by row number.
 * Reading pauses while it is `full` (one slow row holds back at most `capacity` finished ones), so memory stays
 * flat however long the input.
 */
export class ReorderBuffer {
  readonly #slots: (RowOutcome | undefined)[];
  readonly #capacity: number;
  #head = 0;
  #read = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#slots = new Array<RowOutcome | undefined>(capacity).fill(undefined);
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
    this.#slots[index % this.#capacity] = outcome;
  }

  /** The next outcome in input order, when it is finished. */
  take(): RowOutcome | undefined {
    if (this.#head === this.#read) return undefined;
    const slot = this.#head % this.#capacity;
    const outcome = this.#slots[slot];
    if (outcome === undefined) return undefined;
    this.#slots[slot] = undefined;
    this.#head++;
    return outcome;
  }
}
