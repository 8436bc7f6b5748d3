import { Parser, type CsvError } from 'csv-parse';
import type { Readable } from 'node:stream';
import type { RecordItem } from '../types.js';
import { failureReason, isAbort, readFailure } from '../sources/read-failure.js';
import { batchedRecords, type BatchedRecords } from './batches.js';
import { CsvRecordBuilder, isEmptyLine } from './csv-record-builder.js';
import type { RecordEnding } from './csv-lines.js';
import { MAX_RECORD_BYTES } from './limits.js';
import { Utf8Watch } from './utf8-watch.js';
import { CsvFastScanner, fastDelimiter } from './csv-fast.js';
import { quotesInsideAreLiteral } from './delimiter.js';

/** Options of the CSV reader. */
export interface CsvReadOptions {
  /** Source name for locations. */
  source: string;
  delimiter: string;
  /** Told the header's names once they are read (a file may hold a header and no rows), without the columns with no name. */
  onHeader?: (columns: readonly string[]) => void;
  /** False: csv-parse reads every record (the reference the fast scanner is tested against). Default true. */
  fastScan?: boolean;
}

/**
 * csv-parse v6's parser core, which its stream drives: `parse(bytes, end, push, close)` reports each record to
 * `push` synchronously, with the line counter current, and returns an error it could not skip. `state.record` is a
 * new array for every record, `state.field` holds the value being read, and `state.quoting` is true inside quotes.
 */
interface ParserCore {
  parse(bytes: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
  /** `bytes`: the offset in the input (BOM included) after the record just reported, its delimiter included. */
  info: { lines: number; bytes: number; records: number };
  state: {
    record?: unknown;
    /** Set before `on_skip` is called: the record is dropped at its end. */
    recordHasError?: boolean;
    quoting?: boolean;
    wasQuoting?: boolean;
    field?: { toString(encoding: 'utf8'): string };
    /** The input offset of the bytes parse is given next: `info.bytes` counts from it. */
    bufBytesStart: number;
    /** The field count of the first record: each record must have as many. */
    expectedRecordLength?: number;
  };
  /** `skip_empty_lines`: read at each call of parse. */
  options: { skip_empty_lines: boolean };
  /** Starts the next record: called at the end of each record, reported or dropped for an error. */
  __resetRecord: (this: ParserCore) => void;
}

function noop(): void {}

const EMPTY = Buffer.alloc(0);

/**
 * Reads CSV (or TSV) bytes as records keyed by the header row, every value a string. A bad row is yielded as an
 * error item and reading goes on. Where nothing after a place can be read (a bad or missing header, an unclosed
 * quote, a row over the size limit, input that fails part-way) the records before it are yielded, then the row at
 * that place as an error item (a header is not a row), then a SourceError located there is thrown: every row read
 * is reported, and the input is never taken for read to its end when it was not. Blank lines and rows whose cells
 * are all empty are skipped (in a one-column file an empty line is an empty value). A row with fewer fields than
 * the header is an error, like one with more: padding it would hide a row split by an unquoted line break. The
 * records can be read once, one by one or in batches.
 */
export function csvRecords(input: Readable, options: CsvReadOptions): BatchedRecords {
  return batchedRecords(() => csvBatches(input, options));
}

/**
 * csv-parse's core is driven here directly, one input chunk at a time, rather than through its stream: the records
 * of a chunk are built into items as csv-parse reports them and handed on together before the next chunk is read
 * (which bounds what is buffered), without an object-mode stream and its async iterator between the parser and
 * the reader.
 */
async function* csvBatches(input: Readable, options: CsvReadOptions): AsyncGenerator<RecordItem[]> {
  const watch = new Utf8Watch();
  // How many bytes have been read, and the last of them: whether the bytes read end with a line break.
  let total = 0;
  let lastByte = 0x0a;
  // True while csv-parse reads what it holds at the end of the input: how the record just ended meets that end.
  let ending = false;
  // Where the record being read starts in the input: where the rows not read start, should it stop the reading.
  let recordStart = 0;
  const recordEnding = (): RecordEnding => (core!.info.bytes !== total || lastByte === 0x0a || lastByte === 0x0d ? 'delimited' : 'unterminated');
  // Once a header of several columns is read, csv-parse skips empty lines itself: they are no rows, and as records
  // each would cost an error (its one field is not the header's count), several times the cost of a row. In a
  // one-column file an empty line is an empty value.
  const onHeader = (columns: readonly string[]): void => {
    if (core !== undefined) core.options.skip_empty_lines = columns.length > 1;
    fast?.headerRead(columns.length);
    // The columns with no name give no field: their cells are checked empty row by row.
    options.onHeader?.(columns.filter((column) => column !== ''));
  };
  const builder = new CsvRecordBuilder(options.source, watch, onHeader);
  let items: RecordItem[] = [];
  // Well-formed records are read by the fast scanner; from the first it is unsure of, csv-parse reads the rest.
  const delimiterByte = options.fastScan === false ? undefined : fastDelimiter(options.delimiter);
  const literalQuotes = quotesInsideAreLiteral(options.delimiter);
  let fast =
    delimiterByte === undefined
      ? undefined
      : new CsvFastScanner(
          delimiterByte,
          (values, parserLines, end, after) => {
            const item = builder.record(values, parserLines, end, recordStart, after);
            recordStart = after;
            if (item !== null) items.push(item);
          },
          literalQuotes,
        );
  // The record (csv-parse's array) of the last error reported: a record with an error is dropped whatever follows.
  let erroredRecord: unknown;
  // The bytes the fast scanner holds (the start of a record), and their offset in the input.
  let held: Buffer | undefined;
  let heldAt = 0;
  let core: ParserCore | undefined;
  /**
   * csv-parse, reading the input from offset `at` on (a record's start, where the fast scanner stopped); from then on
   * it reads every record, and the fast scanner none.
   */
  const openCore = (at: number): ParserCore => {
    const opened = (
      new Parser({
        delimiter: options.delimiter,
        // After the fast scanner, a BOM was skipped already: the same bytes inside the file are a value's.
        bom: at === 0,
        // Every line end ends a record, whichever the first line has: old Mac exports end lines with a bare CR, and
        // a file edited on several systems mixes them. CRLF comes first, so that it is one line end, not two.
        record_delimiter: ['\r\n', '\n', '\r'],
        max_record_size: MAX_RECORD_BYTES,
        skip_records_with_error: true,
        on_skip: (error: CsvError | undefined) => {
          if (error === undefined) return undefined;
          if (literalQuotes && error.code === 'INVALID_OPENING_QUOTE' && opened.state.record !== erroredRecord) {
            // csv-parse appends the quote to the value after this call, as its relax_quotes would; relax_quotes is not
            // used because it also reads `"abc"x` as `"abcx`, a value changed in silence, where a quoted cell's error stays.
            opened.state.recordHasError = false;
            return undefined;
          }
          erroredRecord = opened.state.record;
          const item = builder.skip(error, opened.state.record, opened.state.field, { offset: recordStart, quoting: opened.state.quoting === true });
          if (error.code === 'CSV_INVALID_CLOSING_QUOTE') {
            // The quote closes the value, as csv-parse's relax_quotes would read it: the row (dropped for its error)
            // ends at the end of its line. Left open, every line up to the next quote was read into it, never reported.
            opened.state.quoting = false;
            opened.state.wasQuoting = true;
          }
          if (item !== null) items.push(item);
          if (builder.dropping) opened.__resetRecord = droppedReset;
          else if (error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' && !isEmptyLine(error)) recordStart = opened.info.bytes;
          return undefined;
        },
      }) as unknown as { api: ParserCore }
    ).api;
    if (fast !== undefined && at > 0) {
      // Where the fast scanner stopped, as if csv-parse had read the input from its start.
      opened.info.lines = fast.lines;
      opened.info.records = fast.records;
      opened.state.bufBytesStart = at;
      if (fast.expected >= 0) opened.state.expectedRecordLength = fast.expected;
      opened.options.skip_empty_lines = fast.skipEmpty;
    }
    reset = opened.__resetRecord;
    fast = undefined;
    return opened;
  };
  let reset: (this: ParserCore) => void = noop;
  // csv-parse reports the end of a record it drops for an error nowhere but in resetting it: while one is read, that
  // reset is watched (only then, so that reading good records costs nothing more).
  function droppedReset(this: ParserCore): void {
    this.__resetRecord = reset;
    builder.droppedEnd(this.state.record, this.info.lines);
    recordStart = this.info.bytes;
    reset.call(this);
  }
  const push = (record: string[]): void => {
    const item = builder.record(record, core!.info.lines, ending ? recordEnding() : 'delimited', recordStart, core!.info.bytes);
    recordStart = core!.info.bytes;
    if (item !== null) items.push(item);
  };
  /**
   * The input failed part-way: every record whole in the bytes read is handed on (csv-parse holds the last one or
   * two until it sees what follows), and the one the bytes end inside is cut off. Returns the error to throw.
   */
  const cutShort = (error: unknown): Error => {
    if (isAbort(error)) return error as Error;
    if (core === undefined) {
      core = openCore(heldAt);
      const failed = held === undefined ? undefined : core.parse(held, false, push, noop);
      held = undefined;
      if (failed !== undefined) return readFailure(failed, options.source);
    }
    // The bytes csv-parse holds back (a quote, a line break) are read as at the end of the input, so that its state
    // is that of all the bytes read: a record they end is whole; one they end inside, quoted or not, is cut off.
    // A record whose error was reported already is not reported again as cut off.
    const reported = builder.dropping;
    const before = builder.lastLine;
    const made = items.length;
    builder.cutting = ending = true;
    // A row cut between the CR and the LF of its CRLF ends there: a bare CR is a line end too.
    const failed = core.parse(undefined, true, push, noop);
    builder.cutting = ending = false;
    if (failed !== undefined || builder.stopped !== undefined) return readFailure(failed ?? builder.stopped, options.source);
    // A header the bytes end inside is not read as one (cut short, it may not name the columns it should).
    if (builder.columns === undefined) return readFailure(error, options.source, { line: 1 });
    let at = builder.nextLine;
    let cut = lastByte !== 0x0a && lastByte !== 0x0d;
    if (builder.cutAt !== undefined) {
      // Inside a quoted value: the record it is in is cut off, and every record before it was handed on already.
      at = builder.cutAt;
      cut = true;
    } else if (cut && builder.lastLine !== before) {
      // The last record csv-parse ended is the one the bytes end inside.
      at = builder.lastLine;
    }
    // An item made now for the record the bytes end inside is replaced: that the row is cut off is what is wrong.
    if (cut && items.length > made && items.at(-1)?.location.line === at) items.pop();
    const item = cut && !reported ? builder.cutOff(at, failureReason(error).why) : null;
    if (item !== null) items.push(item);
    return readFailure(error, options.source, { line: at });
  };
  /** The next bytes (undefined: the input's end) to the fast scanner, or to csv-parse from where it stops. */
  const scanFast = (bytes: Buffer | undefined): Error | undefined => {
    const buf = held === undefined ? (bytes ?? EMPTY) : bytes === undefined ? held : Buffer.concat([held, bytes]);
    const scan = fast!.scan(buf, heldAt, bytes === undefined);
    const rest = scan.next < buf.length ? buf.subarray(scan.next) : undefined;
    if (!scan.handOff) {
      held = rest;
      heldAt += scan.next;
      return undefined;
    }
    held = undefined;
    core = openCore(heldAt + scan.next);
    return core.parse(rest, ending, push, noop);
  };
  try {
    if (fast === undefined) core = openCore(0);
    const chunks = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Buffer | string>;
      try {
        next = await chunks.next();
      } catch (error) {
        const failure = cutShort(error);
        if (items.length > 0) yield items;
        throw failure;
      }
      // undefined: the input has ended, and csv-parse reads what it still holds.
      const bytes = next.done === true ? undefined : typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      if (bytes === undefined) watch.seeEnd();
      else {
        watch.see(bytes);
        if (bytes.length > 0) lastByte = bytes[bytes.length - 1]!;
        total += bytes.length;
      }
      ending = bytes === undefined;
      const error = core === undefined ? scanFast(bytes) : core.parse(bytes, ending, push, noop);
      if (error !== undefined) throw error;
      if (items.length > 0) {
        yield items;
        items = [];
      }
      // Nothing after the place it names can be read.
      if (builder.stopped !== undefined) throw builder.stopped;
      if (bytes === undefined) break;
    }
    if (builder.columns === undefined) throw builder.empty();
  } catch (error) {
    throw readFailure(error, options.source);
  } finally {
    input.destroy();
  }
}
