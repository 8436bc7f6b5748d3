/** The size of a chunk handed to the OS, in bytes (64 KiB chunks cost measurably more in writes handed to the OS). */
export const CHUNK_BYTES = 128 * 1024;

/**
 * Text gathered before it is encoded, in UTF-16 units: about ten rows (4 KiB of string), so that one call encodes
 * several (the call, not the bytes, is most of a row's cost). Small: a rope of thousands of rows outlived the young
 * generation's collections (copied, then promoted) in a busy run.
 */
const GATHER_UNITS = 2048;

/**
 * Text encoded to UTF-8 as it is added, a few rows at a time, into chunks of {@link CHUNK_BYTES}, for a file written
 * a row at a time.
 *
 * The bytes are those of the whole text encoded at once: a text ending in the first half of a surrogate pair keeps
 * that half back for the next one.
 */
export class Utf8Chunks {
  #chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  #used = 0;
  #full: Buffer[] = [];
  /** Text added, not yet encoded. */
  #pending = '';
  /** The first half of a pair that ended the text encoded last. */
  #carry = '';

  /** Whether a chunk is full (time to hand it to the OS). */
  get hasFull(): boolean {
    return this.#full.length > 0;
  }

  /** Whether nothing is waiting. */
  get empty(): boolean {
    return this.#full.length === 0 && this.#used === 0 && this.#pending === '' && this.#carry === '';
  }

  add(text: string): void {
    this.#pending += text;
    if (this.#pending.length >= GATHER_UNITS) this.#encodePending();
  }

  #encodePending(): void {
    const text = this.#pending;
    this.#pending = '';
    this.#encode(text);
  }

  #encode(text: string): void {
    if (text === '') return;
    let rest = this.#carry === '' ? text : this.#carry + text;
    this.#carry = '';
    const last = rest.charCodeAt(rest.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#carry = rest.slice(-1);
      rest = rest.slice(0, -1);
    }
    // At most 3 bytes per UTF-16 unit: checked by length, not by measuring the text.
    if (rest.length * 3 <= CHUNK_BYTES - this.#used) {
      this.#used += this.#chunk.write(rest, this.#used);
      return;
    }
    this.#close();
    if (rest.length * 3 <= CHUNK_BYTES) this.#used = this.#chunk.write(rest, 0);
    else this.#full.push(Buffer.from(rest, 'utf8'));
  }

  /**
   * The chunks to hand to the OS, in order, taken: the full ones, and with `all` what is left (a half pair kept
   * back is then written as it is, as the end of a text is).
   */
  take(all: boolean): Buffer[] {
    if (all) {
      this.#encodePending();
      if (this.#carry !== '') {
        const carry = this.#carry;
        this.#carry = '';
        if (this.#used + 3 > CHUNK_BYTES) this.#close();
        this.#used += this.#chunk.write(carry, this.#used);
      }
      if (this.#used >= CHUNK_BYTES / 4) this.#close();
      else if (this.#used > 0) {
        // A few lines (the journal's every 50 ms): copied out, and the chunk kept, rather than a whole chunk anew each time.
        this.#full.push(Buffer.from(this.#chunk.subarray(0, this.#used)));
        this.#used = 0;
      }
    }
    const full = this.#full;
    this.#full = [];
    return full;
  }

  /** The current chunk joins the full ones; a fresh one is started. */
  #close(): void {
    if (this.#used === 0) return;
    this.#full.push(this.#chunk.subarray(0, this.#used));
    this.#chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    this.#used = 0;
  }
}
