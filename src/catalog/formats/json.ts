import type { Readable } from 'node:stream';
import Parser from 'stream-json/Parser.js';
import { MAX_JSON_SPACE_BYTES, MAX_RECORD_BYTES } from './limits.js';
import type { RecordItem } from '../types.js';
import { failureReason, isAbort, readFailure } from '../sources/read-failure.js';
import { JsonSelector, ONLY_WHITE_SPACE, type JsonToken } from './json-select.js';
import { Utf8Watch } from './utf8-watch.js';

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
  /** Where each input chunk (bytes) comes in, once the first one was seen to be bytes. */
  _transformBuffer(this: Parser, chunk: Buffer, encoding: BufferEncoding, callback: Callback): void;
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

  constructor(options: JsonReadOptions, watch: Utf8Watch) {
    super({ packKeys: true, packStrings: true, packNumbers: true, streamKeys: false, streamStrings: false, streamNumbers: false });
    const path = options.jsonPath === undefined || options.jsonPath === '' ? undefined : options.jsonPath.split('.');
    this.selector = new JsonSelector(
      options.source,
      path,
      () => watch.invalid,
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

  _transformBuffer(chunk: Buffer, encoding: BufferEncoding, callback: Callback): void {
    this.#sinceToken += chunk.length;
    if (this.#sinceToken > MAX_JSON_SPACE_BYTES) this.selector.broken(`over ${MAX_JSON_SPACE_BYTES / 1024 / 1024} MiB of white space hold no JSON value; reading stopped here`);
    internals._transformBuffer.call(this, chunk, encoding, callback);
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
  const watch = new Utf8Watch();
  const parser = new JsonRecordParser(options, watch);
  const selector = parser.selector;
  // Piped, not pipeline(): an input that fails would destroy the parser, and the records it holds for the reader
  // with it. The failure ends the records instead, after them and the record it cut off.
  input.once('error', (error) => selector.failed(readFailure(error, options.source, selector.position), isAbort(error) ? undefined : failureReason(error).why));
  input.pipe(watch).pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<RecordItem>) yield item;
  } catch (error) {
    throw readFailure(error, options.source);
  } finally {
    parser.destroy();
    watch.destroy();
    input.destroy();
  }
  if (selector.stopped !== undefined) throw selector.stopped;
}
