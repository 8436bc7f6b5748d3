import type { Readable } from 'node:stream';
import Parser from 'stream-json/Parser.js';
import { MAX_JSON_SPACE_BYTES, MAX_RECORD_BYTES } from './limits.js';
import type { RecordItem } from '../types.js';
import { failureReason, isAbort, readFailure } from '../sources/read-failure.js';
import { JsonSelector, ONLY_WHITE_SPACE, type JsonToken } from './json-select.js';
import { Utf8Decoder } from './utf8-watch.js';

/** Options of the JSON reader. */
export interface JsonReadOptions {
  /** Source name for locations. */
  source: string;
  /** Dotted key path of the records' array inside the top-level object, e.g. `products` or `data.items`. */
  jsonPath?: string;
}

type Callback = (error?: Error | null) => void;

/** The undocumented step of stream-json's Parser that turns buffered text into tokens. */
interface ParserInternals {
  _processBuffer(this: Parser, callback: Callback): void;
  _buffer: string;
  /** Set once the input has ended: what is still to parse is all there is. */
  _done: boolean;
  /** The string, key or number being packed: it grows with the value, however long. */
  _accumulator: string;
}
const internals = Parser.prototype as unknown as ParserInternals;

/**
 * stream-json's parser with the record selection fused in: each token goes straight to the selector (no stream hop
 * per token), the readable side carries record items, and a syntax error stops the selector instead of destroying
 * the stream (which would drop the records read before it): the readable side then ends, and the reader throws.
 */
class JsonRecordParser extends Parser {
  readonly selector: JsonSelector;
  /** Bytes taken in since the last token: white space with no end (a stream of spaces) is not read for ever. */
  #sinceToken = 0;
  readonly #decoder = new Utf8Decoder();

  constructor(options: JsonReadOptions) {
    super({ packKeys: true, packStrings: true, packNumbers: true, streamKeys: false, streamStrings: false, streamNumbers: false });
    const path = options.jsonPath === undefined || options.jsonPath === '' ? undefined : options.jsonPath.split('.');
    this.selector = new JsonSelector(
      options.source,
      path,
      (item) => super.push(item),
      () => super.push(null),
    );
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) return super.push(null, encoding);
    this.#sinceToken = 0;
    this.selector.token(chunk as JsonToken);
    return true;
  }

  /** Where each input chunk (bytes) comes in, once the first one was seen to be bytes: decoded here, not by the parser. */
  _transformBuffer(chunk: Buffer, _encoding: BufferEncoding, callback: Callback): void {
    this.#sinceToken += chunk.length;
    if (this.#sinceToken > MAX_JSON_SPACE_BYTES) this.selector.broken(`over ${MAX_JSON_SPACE_BYTES / 1024 / 1024} MiB of white space hold no JSON value; reading stopped here`);
    const { text, invalidEnds } = this.#decoder.write(chunk);
    if (invalidEnds === undefined) {
      (this as unknown as ParserInternals)._buffer += text;
      this._processBuffer(callback);
    } else this.#parseMarked(text, invalidEnds, 0, callback);
  }

  /**
   * Text holding U+FFFDs made for bytes that were not UTF-8 is parsed up to each in turn: the parser takes a string's
   * text as far as it is given, so the record being read then is the one whose value holds those bytes.
   */
  #parseMarked(text: string, invalidEnds: readonly number[], next: number, callback: Callback): void {
    const from = next === 0 ? 0 : invalidEnds[next - 1]!;
    const to = next < invalidEnds.length ? invalidEnds[next]! : text.length;
    (this as unknown as ParserInternals)._buffer += text.slice(from, to);
    this._processBuffer((error) => {
      if (error || next === invalidEnds.length) return callback(error);
      this.selector.invalidText();
      this.#parseMarked(text, invalidEnds, next + 1, callback);
    });
  }

  _processBuffer(callback: Callback): void {
    const self = this as unknown as ParserInternals;
    // Once stopped nothing more is read: holding the callback stops the input until the reader is destroyed.
    if (this.selector.stopped !== undefined) {
      self._buffer = '';
      return;
    }
    internals._processBuffer.call(this, (error) => {
      if (error) {
        // An error once the input has ended is about what is missing: the JSON was cut short (or never began).
        const message = self._done && self._buffer.trim() === '' ? ONLY_WHITE_SPACE : error.message.replace(/^Parser (cannot parse input: |has )?/, '');
        self._buffer = '';
        this.selector.broken(message, self._done);
      } else if (self._accumulator.length > MAX_RECORD_BYTES) {
        // One value over the record limit: stop before it is held whole (a string with no end would take all memory).
        self._buffer = '';
        self._accumulator = '';
        this.selector.broken('a single value is longer than 1 MiB; reading stopped here');
      }
      if (this.selector.stopped === undefined) callback(null);
    });
  }

  override _flush(callback: Callback): void {
    // An incomplete character at the end: cut short, the JSON cannot end there (the parser says so).
    (this as unknown as ParserInternals)._buffer += this.#decoder.end();
    super._flush((error) => {
      this.selector.end();
      callback(error);
    });
  }
}

/**
 * Reads a JSON document as records, streaming: never more than one record is built at a time. The location of a
 * record is its 1-based index in the array. A document that is cut short or breaks, or holds no array of records,
 * ends the records with an error (SourceError; UsageError for a --json-path that does not fit) thrown after those
 * read before it, and after the record it breaks inside as an error item.
 */
export async function* jsonRecords(input: Readable, options: JsonReadOptions): AsyncGenerator<RecordItem> {
  const parser = new JsonRecordParser(options);
  const selector = parser.selector;
  // Piped, not pipeline(): an input that fails would destroy the parser, and the records it holds for the reader
  // with it. The failure ends the records instead, after them and the record it cut off.
  input.once('error', (error) => selector.failed(readFailure(error, options.source, selector.position), isAbort(error) ? undefined : failureReason(error).why));
  input.pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<RecordItem>) yield item;
  } catch (error) {
    throw readFailure(error, options.source);
  } finally {
    parser.destroy();
    input.destroy();
  }
  if (selector.stopped !== undefined) throw selector.stopped;
}
