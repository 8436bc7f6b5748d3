import { Parser, type CsvError } from 'csv-parse';
import type { Readable } from 'node:stream';
import type { RecordItem } from '../read-records.js';
import { readFailure } from '../sources/read-failure.js';
import { batchedRecords, type BatchedRecords } from './batches.js';
import { CsvRecordBuilder } from './csv-record-builder.js';
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
 * new array for every record.
 */
interface ParserCore {
  parse(bytes: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
  info: { lines: number };
  state: { record?: unknown };
}

function noop(): void {}

/**
 * Reads CSV (or TSV) bytes as records keyed by the header row, every value a string. A bad row is yielded as an
 * error item and reading goes on; a bad header, an oversized row or an unclosed quote at the end ends the records
 * after its error item. Blank lines and rows whose cells are all empty are skipped (in a one-column file an empty
 * line is an empty value). A row with fewer fields than the header is an error, like one with more: padding it would
 * hide a row split by an unquoted line break. The records can be read once, one by one or in batches.
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
  const builder = new CsvRecordBuilder(options.source, watch, options.onHeader);
  let items: RecordItem[] = [];
  const core = (
    new Parser({
      delimiter: options.delimiter,
      bom: true,
      max_record_size: MAX_RECORD_BYTES,
      skip_records_with_error: true,
      on_skip: (error: CsvError | undefined) => {
        if (error === undefined) return undefined;
        const item = builder.skip(error, core.state.record);
        if (item !== null) items.push(item);
        return undefined;
      },
    }) as unknown as { api: ParserCore }
  ).api;
  const push = (record: string[]): void => {
    const item = builder.record(record, core.info.lines);
    if (item !== null) items.push(item);
  };
  try {
    const chunks = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
    for (;;) {
      const next = await chunks.next();
      // undefined: the input has ended, and csv-parse reads what it still holds.
      const bytes = next.done === true ? undefined : typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      if (bytes === undefined) watch.seeEnd();
      else watch.see(bytes);
      const error = core.parse(bytes, bytes === undefined, push, noop);
      if (error !== undefined) throw error;
      if (builder.fatal !== undefined) {
        // Nothing after the fatal item is read.
        yield items.slice(0, items.indexOf(builder.fatal) + 1);
        return;
      }
      if (items.length > 0) {
        yield items;
        items = [];
      }
      if (bytes === undefined) break;
    }
    if (builder.columns === undefined && !builder.reported) yield [builder.empty()];
  } catch (error) {
    throw readFailure(error, options.source);
  } finally {
    input.destroy();
  }
}
