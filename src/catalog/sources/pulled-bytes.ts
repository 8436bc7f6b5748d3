import type { Readable } from 'node:stream';

/**
 * The bytes of a stream, pulled as a reader needs them: whole chunks, or a given number of bytes, with bytes given
 * back to be read again. `offset` counts the bytes taken.
 */
export class PulledBytes {
  offset = 0;
  readonly #iterator: AsyncIterator<Buffer>;
  #held: Buffer[] = [];
  #length = 0;
  #done = false;

  constructor(stream: Readable) {
    this.#iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** Holds at least `size` bytes; false when the stream ends before. */
  async fill(size: number): Promise<boolean> {
    while (this.#length < size) {
      if (this.#done) return false;
      const result: IteratorResult<Buffer> = await this.#iterator.next();
      if (result.done === true) this.#done = true;
      else if (result.value.length > 0) {
        this.#held.push(result.value);
        this.#length += result.value.length;
      }
    }
    return true;
  }

  /** The next `size` bytes held (fill first), not taken. */
  peek(size: number): Buffer {
    const all = this.#held.length === 1 ? this.#held[0]! : Buffer.concat(this.#held, this.#length);
    this.#held = [all];
    return all.subarray(0, size);
  }

  /** Takes the next `size` bytes held (fill first). */
  take(size: number): Buffer {
    const taken = this.peek(size);
    const rest = this.#held[0]!.subarray(size);
    this.#held = rest.length > 0 ? [rest] : [];
    this.#length -= size;
    this.offset += size;
    return taken;
  }

  /** Takes the next chunk, held or read; undefined at the end of the stream. */
  async next(): Promise<Buffer | undefined> {
    if (!(await this.fill(1))) return undefined;
    const chunk = this.#held.shift()!;
    this.#length -= chunk.length;
    this.offset += chunk.length;
    return chunk;
  }

  /** Gives back the last bytes taken, to be read again. */
  unshift(bytes: Buffer): void {
    this.#held.unshift(bytes);
    this.#length += bytes.length;
    this.offset -= bytes.length;
  }

  /** Reads the stream to its end, true when every byte left is zero (padding); stops at the first other byte. */
  async onlyZerosLeft(): Promise<boolean> {
    for (let chunk = await this.next(); chunk !== undefined; chunk = await this.next()) {
      if (chunk.some((byte) => byte !== 0)) return false;
    }
    return true;
  }

  /** Lets the stream go (destroying it, when it is not at its end). */
  async close(): Promise<void> {
    await this.#iterator.return?.();
  }
}
