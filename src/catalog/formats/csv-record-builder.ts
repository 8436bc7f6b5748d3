import type { CsvError } from 'csv-parse';
import type { RecordItem } from '../read-records.js';
import { LineTracker } from './csv-lines.js';
import { hasReplacement, INVALID_UTF8, type Utf8Watch } from './utf8-watch.js';

function anyReplacement(values: readonly string[]): boolean {
  for (const value of values) if (hasReplacement(value)) return true;
  return false;
}

function allEmpty(values: readonly string[]): boolean {
  for (const value of values) if (value !== '') return false;
  return true;
}

function headerProblems(names: readonly string[]): string[] {
  if (names.length === 1 && names[0] === '') return ['is empty; the first line should name the columns'];
  const problems: string[] = [];
  const seen = new Map<string, number[]>();
  names.forEach((name, index) => {
    if (name === '') problems.push(`column ${index + 1} has no name`);
    else if (name === '__proto__') problems.push(`column ${index + 1} is named __proto__, which cannot be a field`);
    else seen.set(name, [...(seen.get(name) ?? []), index + 1]);
  });
  for (const [name, positions] of seen) {
    if (positions.length > 1) problems.push(`columns ${positions.join(', ')} are all named ${JSON.stringify(name)}`);
  }
  return problems;
}

/**
 * Turns what csv-parse reports (each record's values, each skipped record's error) into record items: the header
 * row gives the keys, every item carries the physical line where its record starts, and each bad record is reported
 * once. csv-parse calls it synchronously and in input order, so items keep that order.
 */
export class CsvRecordBuilder {
  /** The header's names, once the header row has been read. */
  columns: string[] | undefined;
  /** Set on an item after which nothing can be read (a bad header, an oversized record). */
  fatal: RecordItem | undefined;
  /** True once any error item was made. */
  reported = false;
  readonly #source: string;
  readonly #watch: Utf8Watch;
  readonly #lines = new LineTracker();
  /** The record (csv-parse's array) of the last error, so that a record with several problems is reported once. */
  #lastErrorRecord: unknown;

  readonly #onHeader: ((columns: readonly string[]) => void) | undefined;

  constructor(source: string, watch: Utf8Watch, onHeader?: (columns: readonly string[]) => void) {
    this.#source = source;
    this.#watch = watch;
    this.#onHeader = onHeader;
  }

  /** A record csv-parse read whole. Returns the item to emit, or null for none (the header, a blank row). */
  record(values: string[], parserLines: number): RecordItem | null {
    if (this.fatal !== undefined) return null;
    const line = this.#lines.recordEnd(values, parserLines);
    const columns = this.columns;
    if (columns === undefined) return this.#header(values, line);
    if (this.#watch.invalid && anyReplacement(values)) return this.#error(line, `the row ${INVALID_UTF8}`);
    if (columns.length > 1 && allEmpty(values)) return null;
    const fields: Record<string, string> = {};
    for (let i = 0; i < values.length; i++) fields[columns[i]!] = values[i]!;
    return { location: { source: this.#source, line }, fields };
  }

  /**
   * A record csv-parse skipped, with its error. `current` is the record csv-parse is building (the same array for
   * every error of one record). Returns the item to emit, or null.
   */
  skip(error: CsvError, current: unknown): RecordItem | null {
    if (this.fatal !== undefined) return null;
    const repeated = current !== undefined && current === this.#lastErrorRecord;
    this.#lastErrorRecord = current;
    if (error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') {
      const values = Array.isArray(error.record) ? (error.record as string[]) : [];
      const line = this.#lines.recordEnd(values, Number(error.lines));
      if (repeated || (values.length === 1 && values[0] === '')) return null;
      const expected = this.columns?.length ?? 0;
      const hint = values.length > expected ? ': a value holding the delimiter must be quoted' : '';
      return this.#error(line, `the row has ${values.length} fields but the header has ${expected}${hint}`);
    }
    if (repeated) return null;
    const column = this.#columnName(error.column);
    const here = this.#lines.lineOf(Number(error.lines));
    const next = this.#lines.end + 1;
    const [line, message, fatal] = ((): [number, string, boolean] => {
      switch (error.code) {
        case 'CSV_QUOTE_NOT_CLOSED':
          return [next, `a quoted value${column} opens in this row and is never closed (the file ends inside it)`, false];
        case 'CSV_MAX_RECORD_SIZE':
          return [next, 'the row is larger than 1 MiB; reading stopped here (an unclosed quote can cause this)', true];
        case 'CSV_INVALID_CLOSING_QUOTE':
          return [here, `a quote inside the quoted value${column} must be doubled ("")`, false];
        case 'INVALID_OPENING_QUOTE':
          return [here, `a quote inside the unquoted value${column}: quote the whole value and double the quote ("")`, false];
        default:
          return [here, error.message, false];
      }
    })();
    return this.#error(line, this.columns === undefined ? `the header row: ${message}` : message, fatal);
  }

  /** The item for a source that held no header row at all. */
  empty(): RecordItem {
    return this.#error(1, 'the file is empty; its first line should name the columns', true);
  }

  #header(values: string[], line: number): RecordItem | null {
    const problems = this.#watch.invalid && anyReplacement(values) ? [INVALID_UTF8] : headerProblems(values);
    if (problems.length === 0) {
      this.columns = values;
      this.#onHeader?.(values);
      return null;
    }
    return this.#error(line, `the header row ${problems.join('; ')}`, true);
  }

  #columnName(column: unknown): string {
    if (typeof column !== 'number') return '';
    const name = this.columns?.[column];
    return name === undefined ? ` (column ${column + 1})` : ` (column ${JSON.stringify(name)})`;
  }

  #error(line: number, error: string, fatal = false): RecordItem {
    // Before the header is read, any error leaves the keys unknown: nothing after it can be read.
    const item = { location: { source: this.#source, line }, error };
    this.reported = true;
    if (fatal || this.columns === undefined) this.fatal = item;
    return item;
  }
}
