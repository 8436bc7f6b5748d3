import { isUtf8 } from 'node:buffer';

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
 * Calls `invalid(start, end)` for each run of bytes that is not UTF-8, cut as the WHATWG decoder (and Node's) cuts
 * them: each run is one U+FFFD once decoded. Returns where a sequence the end of `buf` cuts short starts (the bytes
 * to keep for the next chunk), or `buf.length`. Only a chunk that failed the native check is walked byte by byte.
 */
function findInvalid(buf: Buffer, invalid: (start: number, end: number) => void): number {
  const length = buf.length;
  let i = 0;
  while (i < length) {
    const byte = buf[i]!;
    if (byte < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lower = 0x80;
    let upper = 0xbf;
    if (byte >= 0xc2 && byte <= 0xdf) need = 1;
    else if (byte >= 0xe0 && byte <= 0xef) {
      need = 2;
      if (byte === 0xe0) lower = 0xa0;
      else if (byte === 0xed) upper = 0x9f;
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      need = 3;
      if (byte === 0xf0) lower = 0x90;
      else if (byte === 0xf4) upper = 0x8f;
    } else {
      invalid(i, i + 1);
      i++;
      continue;
    }
    let j = i + 1;
    for (; j <= i + need; j++) {
      if (j === length) return i;
      const next = buf[j]!;
      if (next < lower || next > upper) break;
      lower = 0x80;
      upper = 0xbf;
    }
    if (j <= i + need) invalid(i, j);
    i = j;
  }
  return length;
}

/**
 * Passes bytes through unchanged and notes where they are not valid UTF-8: the offsets (from the start of the
 * input) of the bytes a decoder downstream replaces with U+FFFD. A record is refused when its own bytes hold one;
 * a U+FFFD written in the file as UTF-8 is a value like any other. A valid chunk costs one native check.
 */
export class Utf8Watch {
  #carry: Buffer | undefined;
  /** The offset in the input of the next chunk's first byte (the carry's, when there is one). */
  #offset = 0;
  /** Offsets of bad bytes, increasing; `#head` is the first not yet forgotten. */
  #bad: number[] = [];
  #head = 0;

  /** Checks the next chunk of the input. */
  see(chunk: Buffer): void {
    const buf = this.#carry === undefined ? chunk : Buffer.concat([this.#carry, chunk]);
    const base = this.#offset;
    let end = completeLength(buf);
    if (!isUtf8(buf.subarray(0, end))) end = findInvalid(buf, (start) => this.#bad.push(base + start));
    this.#carry = end < buf.length ? Buffer.from(buf.subarray(end)) : undefined;
    this.#offset = base + end;
  }

  /** The input has ended: an incomplete character left at its end is not UTF-8. */
  seeEnd(): void {
    if (this.#carry !== undefined) this.#bad.push(this.#offset);
    this.#carry = undefined;
  }

  /**
   * True when the input's bytes from `start` to `end` (offsets) held bytes that were not UTF-8. Asked in the order
   * of the input: what lies before `start` is forgotten.
   */
  invalidIn(start: number, end: number): boolean {
    const bad = this.#bad;
    let head = this.#head;
    while (head < bad.length && bad[head]! < start) head++;
    if (head > 1024 && head * 2 > bad.length) {
      bad.splice(0, head);
      head = 0;
    }
    this.#head = head;
    return head < bad.length && bad[head]! < end;
  }
}

/**
 * Decodes UTF-8 chunk by chunk, as a StringDecoder does (bytes that are not UTF-8 become U+FFFD), and tells where
 * in the text each U+FFFD made for such bytes ends, so that a reader can tell it from a U+FFFD written in the file.
 */
export class Utf8Decoder {
  #carry: Buffer | undefined;

  /** The text of the next chunk, and the indexes in it just after each U+FFFD made for bytes that were not UTF-8. */
  write(chunk: Buffer): { text: string; invalidEnds: number[] | undefined } {
    const buf = this.#carry === undefined ? chunk : Buffer.concat([this.#carry, chunk]);
    let end = completeLength(buf);
    let text: string;
    let invalidEnds: number[] | undefined;
    if (isUtf8(buf.subarray(0, end))) text = buf.toString('utf8', 0, end);
    else {
      const ends: number[] = [];
      text = '';
      let from = 0;
      end = findInvalid(buf, (start, stop) => {
        text += `${buf.toString('utf8', from, start)}\uFFFD`;
        ends.push(text.length);
        from = stop;
      });
      text += buf.toString('utf8', from, end);
      invalidEnds = ends;
    }
    this.#carry = end < buf.length ? Buffer.from(buf.subarray(end)) : undefined;
    return { text, invalidEnds };
  }

  /** The input has ended: an incomplete character left at its end is one U+FFFD (bytes that were not UTF-8). */
  end(): string {
    const left = this.#carry === undefined ? '' : '\uFFFD';
    this.#carry = undefined;
    return left;
  }
}

/** True when a decoded string holds U+FFFD, the mark a lenient decoder leaves for bytes that were not UTF-8. */
export function hasReplacement(value: string): boolean {
  return value.indexOf('\uFFFD') >= 0;
}

/** The message of a record that was not valid UTF-8. */
export const INVALID_UTF8 = 'is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)';
/** The same, for a UTF-16 source: what its decoder could not read is a lone surrogate or an odd last byte. */
export const INVALID_UTF16 = 'is not valid UTF-16 text (a lone surrogate, or an odd byte at the end of the file)';
