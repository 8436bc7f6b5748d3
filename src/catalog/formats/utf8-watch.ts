import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';

/** Where a trailing, incomplete UTF-8 sequence starts (or the length, when the buffer ends on a whole character). */
function completeLength(buf: Buffer): number {
  const length = buf.length;
  for (let i = length - 1; i >= 0 && i >= length - 4; i--) {
    const byte = buf[i]!;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length - i >= need ? length : i;
  }
  return length;
}

/**
 * Passes bytes through unchanged and notes whether they were ever not valid UTF-8. Decoders downstream replace bad
 * bytes with U+FFFD; once `invalid` is set, a record holding U+FFFD is reported instead of read. A valid file costs
 * one native check per chunk and nothing per record.
 */
export class Utf8Watch extends Transform {
  invalid = false;
  #carry: Buffer | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.see(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.seeEnd();
    callback();
  }

  /** Checks the next chunk (for a reader that takes the bytes itself rather than through this stream). */
  see(chunk: Buffer): void {
    if (!this.invalid) this.#check(chunk);
  }

  /** The bytes have ended: an incomplete character left at the end makes them invalid. */
  seeEnd(): void {
    if (this.#carry !== undefined) this.invalid = true;
  }

  #check(chunk: Buffer): void {
    const buf = this.#carry === undefined ? chunk : Buffer.concat([this.#carry, chunk]);
    const end = completeLength(buf);
    if (!isUtf8(buf.subarray(0, end))) this.invalid = true;
    this.#carry = end < buf.length ? Buffer.from(buf.subarray(end)) : undefined;
  }
}

/** True when a decoded string holds U+FFFD, the mark a lenient decoder leaves for bytes that were not UTF-8. */
export function hasReplacement(value: string): boolean {
  return value.indexOf('\uFFFD') >= 0;
}

/** The message of a record that was not valid UTF-8. */
export const INVALID_UTF8 = 'is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)';
