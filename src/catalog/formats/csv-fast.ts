import { isAscii } from 'node:buffer';
import type { RecordEnding } from './csv-lines.js';
import { MAX_RECORD_BYTES } from './limits.js';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** Where a scan of the bytes stopped: `next`, the offset of the first record not read; `handOff`, see scan. */
export interface FastScan {
  next: number;
  handOff: boolean;
}

/** Told each record read: its values, csv-parse's line count at its end, how it meets the end of the input, the offset after it. */
export type FastRecord = (values: string[], parserLines: number, ending: RecordEnding, end: number) => void;

/** The delimiter as the one byte the scanner splits on, or undefined when only csv-parse can read it. */
export function fastDelimiter(delimiter: string): number | undefined {
  if (delimiter.length !== 1) return undefined;
  const code = delimiter.charCodeAt(0);
  return code < 0x80 && code !== QUOTE && code !== LF && code !== CR ? code : undefined;
}

/**
 * The records of well-formed CSV, read as csv-parse reads them with the reader's options (one-byte delimiter, `"`
 * quotes and escapes, a quote inside an unquoted value literal in TSV, CRLF, LF and CR line ends, a UTF-8 BOM skipped, empty lines skipped once the header has
 * several columns), at a fraction of its cost: fields are found with a byte loop and `indexOf`, and decoded once.
 * It reads nothing it is unsure of: at the first record that is not plainly well formed (a stray or unclosed quote,
 * a field count other than the header's, a record over the size limit, a UTF-16 BOM) it stops at that record's
 * start and says so (`handOff`); the reader hands that record and the rest of the input to csv-parse, which reads
 * and reports it. `parserLines` is csv-parse's own count at the record's end (a line break inside a quoted value
 * counts once per CR and once per LF there), so that lines are located the same whichever read the record.
 */
export class CsvFastScanner {
  readonly #delimiter: number;
  /** The byte that makes an unquoted value one only csv-parse reads: the quote, or none where it is a literal (TSV). */
  readonly #strayQuote: number;
  readonly #onRecord: FastRecord;
  /** csv-parse's line count at the next record's start. */
  lines = 1;
  /** Records read (the header among them). */
  records = 0;
  /** The header's field count, once read. */
  #expected = -1;
  #skipEmpty = false;
  #started = false;

  /** `literalQuotes`: a quote inside an unquoted value is a character of it (see quotesInsideAreLiteral). */
  constructor(delimiter: number, onRecord: FastRecord, literalQuotes = false) {
    this.#delimiter = delimiter;
    this.#strayQuote = literalQuotes ? -1 : QUOTE;
    this.#onRecord = onRecord;
  }

  /** The header has `count` columns: every record must have as many, and empty lines are no records if over one. */
  headerRead(count: number): void {
    this.#expected = count;
    this.#skipEmpty = count > 1;
  }

  /** The field count csv-parse expects of each record (the header's). */
  get expected(): number {
    return this.#expected;
  }

  /** Whether csv-parse would skip empty lines now. */
  get skipEmpty(): boolean {
    return this.#skipEmpty;
  }

  /**
   * Read the whole records in `buf`, which starts at a record's start, `at` bytes into the input; `end`: nothing
   * follows it. Returns where the records not read start: an incomplete one (wait for more bytes), or with `handOff`
   * one to hand to csv-parse.
   */
  scan(buf: Buffer, at: number, end: boolean): FastScan {
    let pos = 0;
    if (!this.#started) {
      if (buf.length < 3 && !end) return { next: 0, handOff: false };
      this.#started = true;
      // A UTF-16 BOM: csv-parse reads it with its encoding.
      if (buf[0] === 0xff || buf[0] === 0xfe) return { next: 0, handOff: true };
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
    }
    const ascii = isAscii(buf);
    const length = buf.length;
    const delimiter = this.#delimiter;
    const stray = this.#strayQuote;
    while (pos < length) {
      const start = pos;
      if (this.#skipEmpty) {
        const c = buf[pos];
        if (c === LF || c === CR) {
          if (c === CR && pos + 1 === length && !end) return { next: start, handOff: false };
          pos += c === CR && buf[pos + 1] === LF ? 2 : 1;
          this.lines++;
          continue;
        }
      }
      const values: string[] = [];
      // csv-parse's count of the line breaks inside quoted values of this record.
      let inside = 0;
      let p = pos;
      // 0: the record goes on past the bytes; -1: only csv-parse reads it; else the length of its line end (or 3: the input's end).
      let ending = 0;
      for (;;) {
        let value: string;
        if (buf[p] === QUOTE) {
          let from = p + 1;
          value = '';
          let closed = -1;
          for (;;) {
            const quote = buf.indexOf(QUOTE, from);
            if (quote < 0) break;
            for (let i = from; i < quote; i++) {
              const c = buf[i];
              if (c === LF || c === CR) inside++;
            }
            if (quote + 1 === length && !end) break;
            if (buf[quote + 1] === QUOTE) {
              value += decode(buf, from, quote + 1, ascii);
              from = quote + 2;
              continue;
            }
            value += decode(buf, from, quote, ascii);
            closed = quote + 1;
            break;
          }
          if (closed < 0) {
            // Unclosed within the bytes: more may close it; at the input's end, csv-parse reports it.
            ending = end ? -1 : 0;
            break;
          }
          p = closed;
          const next = buf[p];
          if (p < length && next !== delimiter && next !== LF && next !== CR) {
            ending = -1;
            break;
          }
        } else {
          const from = p;
          let c = 0;
          while (p < length) {
            c = buf[p]!;
            if (c === delimiter || c === LF || c === CR) break;
            if (c === stray) break;
            p++;
          }
          if (p < length && c === stray) {
            ending = -1;
            break;
          }
          if (p === length && !end) break;
          value = from === p ? '' : decode(buf, from, p, ascii);
        }
        values.push(value);
        if (p === length) {
          ending = end ? 3 : 0;
          break;
        }
        const c = buf[p];
        if (c === delimiter) {
          p++;
          // A delimiter at the input's end ends the record with an empty field.
          if (p === length && end) {
            values.push('');
            ending = 3;
            break;
          }
          if (p === length) break;
          continue;
        }
        if (c === LF) ending = 1;
        else if (p + 1 < length) ending = buf[p + 1] === LF ? 2 : 1;
        else ending = end ? 1 : 0;
        break;
      }
      if (ending === 0) {
        // Incomplete: more bytes are needed, unless the record is already larger than csv-parse takes.
        return { next: start, handOff: length - start > MAX_RECORD_BYTES };
      }
      const after = ending === 3 ? length : p + ending;
      if (ending < 0 || after - start > MAX_RECORD_BYTES || (this.#expected >= 0 && values.length !== this.#expected)) return { next: start, handOff: true };
      const parserLines = this.lines + inside;
      this.lines = parserLines + (ending === 3 ? 0 : 1);
      this.records++;
      this.#onRecord(values, parserLines, ending === 3 ? 'unterminated' : 'delimited', at + after);
      pos = after;
    }
    return { next: pos, handOff: false };
  }
}

/** Node's own decoders, which `toString` picks by name on every call (a third of a field's cost). */
interface BufferSlices {
  latin1Slice(from: number, to: number): string;
  utf8Slice(from: number, to: number): string;
}

/** A field's text: latin1 where the bytes are all ASCII (the same text, without UTF-8 decoding), else UTF-8. */
function decode(buf: Buffer, from: number, to: number, ascii: boolean): string {
  const slices = buf as unknown as BufferSlices;
  return ascii ? slices.latin1Slice(from, to) : slices.utf8Slice(from, to);
}
