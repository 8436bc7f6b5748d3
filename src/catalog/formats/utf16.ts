import { Transform, type TransformCallback } from 'node:stream';

/** The byte order of a UTF-16 text. */
export type Utf16 = 'utf-16le' | 'utf-16be';

/** How many leading bytes are looked at for the NUL bytes of UTF-16 without a byte order mark. */
const LOOKED_AT = 1024;

/**
 * The UTF-16 byte order of the first bytes of a source, or undefined for text of another encoding. A byte order
 * mark tells it; without one (Excel's "Unicode text", PowerShell's redirects), the NUL high bytes of the ASCII
 * characters a catalog's header holds do: text whose every other byte is mostly NUL, and whose other bytes almost
 * never are, is UTF-16 (a binary file has NUL bytes in both places; UTF-8 text has next to none).
 */
export function utf16Of(head: Buffer): Utf16 | undefined {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const length = Math.min(head.length, LOOKED_AT) & ~1;
  if (length < 4) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < length; i += 2) {
    if (head[i] === 0) even++;
    if (head[i + 1] === 0) odd++;
  }
  const pairs = length / 2;
  if (odd * 4 >= pairs && even * 16 <= odd) return 'utf-16le';
  if (even * 4 >= pairs && odd * 16 <= even) return 'utf-16be';
  return undefined;
}

// A high surrogate not followed by a low one, or a low one not after a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Not UTF-8: what stands for a code unit that is not text, so that the row holding it is reported as not text. */
const NOT_TEXT = Buffer.from([0xff]);

function utf8Of(text: string): Buffer {
  if (!LONE_SURROGATE.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  for (const part of text.split(LONE_SURROGATE)) parts.push(NOT_TEXT, Buffer.from(part, 'utf8'));
  return Buffer.concat(parts.slice(1));
}

/**
 * UTF-16 bytes (either byte order, a byte order mark dropped) in, UTF-8 bytes out, chunk by chunk: a code unit or
 * a surrogate pair split between chunks waits for the rest. What is not UTF-16 text (a lone surrogate, an odd byte
 * at the end) comes out as a byte that is not UTF-8, which the readers report at the row that holds it.
 */
export class Utf16Decoder extends Transform {
  readonly #bigEndian: boolean;
  #carry: Buffer | undefined;
  #started = false;

  constructor(encoding: Utf16) {
    super();
    this.#bigEndian = encoding === 'utf-16be';
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let bytes = this.#carry === undefined ? chunk : Buffer.concat([this.#carry, chunk]);
    this.#carry = undefined;
    if (!this.#started) {
      if (bytes.length < 2) {
        this.#carry = Buffer.from(bytes);
        callback();
        return;
      }
      this.#started = true;
      const mark = this.#bigEndian ? bytes[0] === 0xfe && bytes[1] === 0xff : bytes[0] === 0xff && bytes[1] === 0xfe;
      if (mark) bytes = bytes.subarray(2);
    }
    let end = bytes.length & ~1;
    if (end >= 2) {
      const last = this.#bigEndian ? (bytes[end - 2]! << 8) | bytes[end - 1]! : (bytes[end - 1]! << 8) | bytes[end - 2]!;
      if (last >= 0xd800 && last <= 0xdbff) end -= 2;
    }
    if (end < bytes.length) this.#carry = Buffer.from(bytes.subarray(end));
    callback(null, end === 0 ? undefined : this.#utf8(bytes.subarray(0, end)));
  }

  override _flush(callback: TransformCallback): void {
    const carry = this.#carry;
    if (carry === undefined) {
      callback();
      return;
    }
    const whole = carry.length & ~1;
    callback(null, Buffer.concat([this.#utf8(carry.subarray(0, whole)), whole < carry.length ? NOT_TEXT : Buffer.alloc(0)]));
  }

  #utf8(units: Buffer): Buffer {
    if (!this.#bigEndian) return utf8Of(units.toString('utf16le'));
    const swapped = Buffer.from(units);
    swapped.swap16();
    return utf8Of(swapped.toString('utf16le'));
  }
}
