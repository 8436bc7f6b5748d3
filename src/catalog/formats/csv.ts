import { Parser, type CsvError } from 'csv-parse';
import type { Readable } from 'node:stream';
import type { RecordItem } from '../types.js';
import { failureReason, isAbort, readFailure } from '../sources/read-failure.js';
import { batchedRecords, type BatchedRecords } from './batches.js';
import { CsvRecordBuilder } from './csv-record-builder.js';
import type { RecordEnding, SplitCrlf } from './csv-lines.js';
import { MAX_RECORD_BYTES } from './limits.js';
import { Utf8Watch } from './utf8-watch.js';

/** Options of the CSV reader. */
export interface CsvReadOptions {
  /** Source name for locations. */
  source: string;
  delimiter: string;
  /** Told the header's names once they are read (a file may hold a header and no rows). */
  onHeader?: (columns: readonly string[]) => void;
}

/**
 * csv-parse v6's parser core, which its stream drives: `parse(bytes, end, push, close)` reports each record to
 * `push` synchronously, with the line counter current, and returns an error it could not skip. `state.record` is a
 * new array for every record, `state.field` holds the value being read, and `state.quoting` is true inside quotes.
 */
interface ParserCore {
  parse(bytes: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
  /** `bytes`: the offset in the input (BOM included) after the record just reported, its delimiter included. */
  info: { lines: number; bytes: number };
  state: { record?: unknown; quoting?: boolean; field?: { toString(encoding: 'utf8'): string } };
  /**
   * `record_delimiter`: the one found in the first line (LF, CRLF or CR), once found. `skip_empty_lines`: read at each
   * call of parse.
   */
  options: { record_delimiter: Buffer[]; skip_empty_lines: boolean };
  /** Starts the next record: called at the end of each record, reported or dropped for an error. */
  __resetRecord: (this: ParserCore) => void;
}

function noop(): void {}

const EMPTY: Buffer = Buffer.alloc(0);
const LF = Buffer.from('\n');
/** More than csv-parse holds back at the end of a chunk (a delimiter, a quote and a record delimiter at most). */
const HELD_BACK = 8;

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
  // The chunk being parsed, where it starts in the input, and the bytes before it (csv-parse may end a record on
  // a few bytes it held back from earlier chunks): to look at the bytes around a record's end.
  let chunk = EMPTY;
  let chunkStart = 0;
  let before = EMPTY;
  const byteAt = (offset: number): number => {
    const index = offset - chunkStart;
    if (index >= 0) return index < chunk.length ? chunk[index]! : -1;
    return before[before.length + index] ?? -1;
  };
  // Whether the record being read starts with LF (looked at when the record before it ends, on a CR delimiter, while
  // csv-parse still holds the byte after it).
  let startsLf = false;
  const ended = (): void => {
    startsLf = byteAt(core.info.bytes) === 0x0a;
  };
  const split: SplitCrlf = {
    atEnd: () => {
      const delimiter = core.options.record_delimiter[0];
      const end = core.info.bytes;
      return delimiter?.length === 1 && byteAt(end - 1) === 0x0a && byteAt(end - 2) === 0x0d;
    },
    atStart: () => {
      const delimiter = core.options.record_delimiter[0];
      return startsLf && delimiter?.length === 1 && delimiter[0] === 0x0d;
    },
  };
  // True while csv-parse reads what it holds at the end of the input: how the record just ended meets that end.
  let ending = false;
  const recordEnding = (): RecordEnding => {
    const end = core.info.bytes;
    const delimiter = core.options.record_delimiter[0];
    if (end !== chunkStart + chunk.length || (delimiter !== undefined && delimiter.every((byte, i) => byteAt(end - delimiter.length + i) === byte))) return 'delimited';
    const last = byteAt(end - 1);
    return last === 0x0a || last === 0x0d ? 'break' : 'unterminated';
  };
  // Once a header of several columns is read, csv-parse skips empty lines itself: they are no rows, and as records
  // each would cost an error (its one field is not the header's count), several times the cost of a row. In a
  // one-column file an empty line is an empty value.
  const onHeader = (columns: readonly string[]): void => {
    core.options.skip_empty_lines = columns.length > 1;
    options.onHeader?.(columns);
  };
  const builder = new CsvRecordBuilder(options.source, watch, onHeader, split);
  let items: RecordItem[] = [];
  const core = (
    new Parser({
      delimiter: options.delimiter,
      bom: true,
      max_record_size: MAX_RECORD_BYTES,
      skip_records_with_error: true,
      on_skip: (error: CsvError | undefined) => {
        if (error === undefined) return undefined;
        const item = builder.skip(error, core.state.record, core.state.field, ending ? recordEnding() : 'delimited');
        if (item !== null) items.push(item);
        if (builder.dropping) core.__resetRecord = droppedReset;
        else if (error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') ended();
        return undefined;
      },
    }) as unknown as { api: ParserCore }
  ).api;
  // csv-parse reports the end of a record it drops for an error nowhere but in resetting it: while one is read, that
  // reset is watched (only then, so that reading good records costs nothing more).
  const reset = core.__resetRecord;
  function droppedReset(this: ParserCore): void {
    core.__resetRecord = reset;
    builder.droppedEnd(this.state.record, this.info.lines, ending ? recordEnding() : 'delimited');
    ended();
    reset.call(this);
  }
  const push = (record: string[]): void => {
    const item = builder.record(record, core.info.lines, ending ? recordEnding() : 'delimited');
    ended();
    if (item !== null) items.push(item);
  };
  /**
   * The input failed part-way: every record whole in the bytes read is handed on (csv-parse holds the last one or
   * two until it sees what follows), and the one the bytes end inside is cut off. Returns the error to throw.
   */
  const cutShort = (error: unknown): Error => {
    if (isAbort(error)) return error as Error;
    // The bytes csv-parse holds back (a quote, a line break) are read as at the end of the input, so that its state
    // is that of all the bytes read: a record they end is whole; one they end inside, quoted or not, is cut off.
    // A record whose error was reported already is not reported again as cut off.
    const reported = builder.dropping;
    const before = builder.lastLine;
    const made = items.length;
    builder.cutting = ending = true;
    // Cut between the CR and the LF of a CRLF: the row ends there (as a CR at the end of the input ends it), which
    // csv-parse sees once given the LF.
    const delimiter = core.options.record_delimiter[0];
    const crlf = lastByte === 0x0d && delimiter?.length === 2 && delimiter[0] === 0x0d && delimiter[1] === 0x0a;
    const failed = (crlf ? core.parse(LF, false, push, noop) : undefined) ?? core.parse(undefined, true, push, noop);
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
  // The last byte read: whether the bytes read end with a line break.
  let lastByte = 0x0a;
  try {
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
        before = Buffer.from(chunk.length >= HELD_BACK ? chunk.subarray(chunk.length - HELD_BACK) : Buffer.concat([before, chunk]).subarray(-HELD_BACK));
        chunkStart += chunk.length;
        chunk = bytes;
      }
      ending = bytes === undefined;
      const error = core.parse(bytes, ending, push, noop);
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
