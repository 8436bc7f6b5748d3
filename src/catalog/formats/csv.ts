import { Parser, type CsvError } from 'csv-parse';
import { pipeline, type Readable } from 'node:stream';
import type { RecordItem } from '../read-records.js';
import { readFailure } from '../sources/read-failure.js';
import { CsvRecordBuilder } from './csv-record-builder.js';
import { MAX_RECORD_BYTES } from './limits.js';
import { Utf8Watch } from './utf8-watch.js';

/** Options of the CSV reader. */
export interface CsvReadOptions {
  /** Source name for locations. */
  source: string;
  delimiter: string;
}

/** csv-parse v6 exposes its state on the parser; `state.record` is a new array for every record. */
interface ParserInternals {
  state?: { record?: unknown };
}

/**
 * csv-parse's stream with the record building fused in. csv-parse hands each record to `push` synchronously, with
 * its line counter current, so records become items there: no `on_record` (which builds an info object per record)
 * and no second stream. Skipped records arrive through `on_skip`, in order with the others.
 */
class CsvRecordParser extends Parser {
  readonly builder: CsvRecordBuilder;

  constructor(options: CsvReadOptions, watch: Utf8Watch) {
    const builder = new CsvRecordBuilder(options.source, watch);
    super({
      delimiter: options.delimiter,
      bom: true,
      max_record_size: MAX_RECORD_BYTES,
      skip_records_with_error: true,
      on_skip: (error: CsvError | undefined) => {
        if (error === undefined) return undefined;
        const item = builder.skip(error, (this as ParserInternals).state?.record);
        if (item !== null) super.push(item);
        return undefined;
      },
    });
    this.builder = builder;
  }

  override _transform(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // After a fatal item nothing more is read: holding the callback stops the input until the reader is destroyed.
    if (this.builder.fatal !== undefined) return;
    super._transform(chunk, encoding, callback);
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) return super.push(null, encoding);
    const item = this.builder.record(chunk as string[], this.info.lines);
    return item === null || super.push(item);
  }
}

function noop(): void {}

/**
 * Reads CSV (or TSV) bytes as records keyed by the header row, every value a string. A bad row is yielded as an
 * error item and reading goes on; a bad header, an oversized row or an unclosed quote at the end ends the records
 * after its error item. Blank lines and rows whose cells are all empty are skipped (in a one-column file an empty
 * line is an empty value). A row with fewer fields than the header is an error, like one with more: padding it would
 * hide a row split by an unquoted line break.
 */
export async function* csvRecords(input: Readable, options: CsvReadOptions): AsyncGenerator<RecordItem> {
  const watch = new Utf8Watch();
  const parser = new CsvRecordParser(options, watch);
  const builder = parser.builder;
  pipeline(input, watch, parser, noop);
  try {
    for await (const item of parser as AsyncIterable<RecordItem>) {
      yield item;
      if (item === builder.fatal) return;
    }
    if (builder.columns === undefined && !builder.reported) yield builder.empty();
  } catch (error) {
    throw readFailure(error, options.source);
  } finally {
    parser.destroy();
    input.destroy();
  }
}
