import type { CsvError } from 'csv-parse';
import { SourceError } from '../../errors.js';
import type { RecordError, RecordItem } from '../types.js';
import { notReadToEnd, type ReadStop } from '../sources/read-failure.js';
import { LineTracker, lineBreaks, type RecordEnding } from './csv-lines.js';
import { hasReplacement, INVALID_UTF8, type Utf8Watch } from './utf8-watch.js';

/** A record of one empty value reported for its field count: an empty line (or a line of `""`) in a file of several columns. */
export function isEmptyLine(error: CsvError): boolean {
  const record = error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' ? error.record : undefined;
  return Array.isArray(record) && record.length === 1 && record[0] === '';
}

function anyReplacement(values: readonly string[]): boolean {
  for (const value of values) if (hasReplacement(value)) return true;
  return false;
}

function allEmpty(values: readonly string[]): boolean {
  for (const value of values) if (value !== '') return false;
  return true;
}

/**
 * True for a row that repeats the header (each cell its column's name, spaces and a byte order mark aside): the
 * header of a second export joined to the first (`cat a.csv b.csv`), never a product.
 */
function isHeaderAgain(values: readonly string[], columns: readonly string[]): boolean {
  if (values.length !== columns.length) return false;
  for (let i = 0; i < values.length; i++) {
    const value = i === 0 && values[0]!.charCodeAt(0) === 0xfeff ? values[0]!.slice(1) : values[i]!;
    if (value.trim() !== columns[i]!.trim()) return false;
  }
  return true;
}

/** The positions (from 0) of the header's columns with no name. */
function unnamedIndexes(columns: readonly string[]): number[] {
  const indexes: number[] = [];
  columns.forEach((name, index) => {
    if (name === '') indexes.push(index);
  });
  return indexes;
}

/** The error of a row holding values under columns with no name (positions from 0), or undefined when they are empty. */
function valuesUnderUnnamed(values: readonly string[], unnamed: readonly number[]): string | undefined {
  const holding = unnamed.filter((index) => values[index]!.trim() !== '').map((index) => index + 1);
  if (holding.length === 0) return undefined;
  const which = named(holding, ', ', (more) => `and ${more} more`);
  return holding.length === 1
    ? `the value in column ${which} sits under a column with no name in the header row: name the column in the header, or empty the cell`
    : `the values in columns ${which} sit under columns with no name in the header row: name the columns in the header, or empty the cells`;
}

const HEADER_AGAIN = 'the row repeats the header row (each cell is its column\'s name): is a second export joined to this one? It is not a product';

/** How many of a header's problems, and of the columns in one, a message names; the rest are counted. */
const NAMED = 10;

function named<T>(items: readonly T[], separator: string, more: (count: number) => string): string {
  return items.length <= NAMED ? items.join(separator) : `${items.slice(0, NAMED).join(separator)}${separator}${more(items.length - NAMED)}`;
}

function headerProblems(names: readonly string[]): string[] {
  if (names.length === 1 && names[0] === '') return ['is empty; the first line should name the columns'];
  if (allEmpty(names)) return ['names no column; the first line should name the columns'];
  const problems: string[] = [];
  const seen = new Map<string, number[]>();
  names.forEach((name, index) => {
    // A column with no name is allowed (spreadsheets end lines with empty columns); a value under it is refused per row.
    if (name === '') return;
    if (name === '__proto__') problems.push(`column ${index + 1} is named __proto__, which cannot be a field`);
    else {
      // Appended in place: a header may repeat one name hundreds of thousands of times.
      const positions = seen.get(name);
      if (positions === undefined) seen.set(name, [index + 1]);
      else positions.push(index + 1);
    }
  });
  for (const [name, positions] of seen) {
    if (positions.length > 1) problems.push(`columns ${named(positions, ', ', (more) => `and ${more} more`)} are all named ${JSON.stringify(name)}`);
  }
  return problems.length <= NAMED ? problems : [named(problems, '; ', (more) => `and ${more} more problems`)];
}

/**
 * Turns what csv-parse reports (each record's values, each skipped record's error) into record items: the header
 * row gives the keys, every item carries the physical line where its record starts, and each bad record is reported
 * once. csv-parse calls it synchronously and in input order, so items keep that order.
 *
 * A problem after which nothing can be read (a bad or missing header, an unclosed quote, an oversized row) sets
 * `stopped`, the SourceError to throw once the items before it are handed on: a header is not a row, so a bad one
 * is no item; a row that stops the reading is one, reported once, before the error.
 */
export class CsvRecordBuilder {
  /** The header's names, once the header row has been read ('' for a column with no name). */
  columns: string[] | undefined;
  /** The positions of the header's columns with no name: their cells must be empty. */
  #unnamed: number[] = [];
  /** Set when nothing more can be read: the error to throw after the items made before it. */
  stopped: SourceError | undefined;
  /** The physical line where the last record seen (good, bad or blank) starts. */
  lastLine = 0;
  /**
   * Set while the bytes held back are read after the input failed: a quoted value left open there is where the
   * bytes were cut, not a quote left open in the file (`cutAt` is then the line its record starts on), and a header
   * they end inside is no header.
   */
  cutting = false;
  cutAt: number | undefined;
  readonly #source: string;
  readonly #watch: Utf8Watch;
  readonly #lines: LineTracker;
  /** The record (csv-parse's array) of the last error, so that a record with several problems is reported once. */
  #lastErrorRecord: unknown;
  /** That record while csv-parse still reads it (it drops it at its end, see droppedEnd). */
  #dropped: unknown;
  /** The CRLFs inside it already taken off csv-parse's count (which counts each twice). */
  #droppedCrlf = 0;

  readonly #onHeader: ((columns: readonly string[]) => void) | undefined;

  constructor(source: string, watch: Utf8Watch, onHeader?: (columns: readonly string[]) => void) {
    this.#source = source;
    this.#watch = watch;
    this.#onHeader = onHeader;
    this.#lines = new LineTracker();
  }

  /** The physical line after the last record seen: where a record still being read starts. */
  get nextLine(): number {
    return this.#lines.end + 1;
  }

  /**
   * A record csv-parse read whole, from input offset `start` to `end`; `ending`: how it meets the end of the input.
   * Returns the item to emit, or null for none (the header, a blank row).
   */
  record(values: string[], parserLines: number, ending: RecordEnding, start: number, end: number): RecordItem | null {
    if (this.stopped !== undefined) return null;
    const line = this.#lines.recordEnd(values, parserLines);
    this.lastLine = line;
    // Only bytes of this record that were not UTF-8 refuse it: a U+FFFD written as UTF-8 is a value like any other.
    const invalid = this.#watch.invalidIn(start, end) && anyReplacement(values);
    const columns = this.columns;
    if (columns === undefined) return this.cutting && ending === 'unterminated' ? null : this.#header(values, line, invalid);
    if (invalid) return this.#error(line, `the row ${INVALID_UTF8}`);
    if (columns.length > 1 && allEmpty(values)) return null;
    if (isHeaderAgain(values, columns)) return this.#error(line, HEADER_AGAIN);
    const fields: Record<string, string> = {};
    if (this.#unnamed.length === 0) {
      for (let i = 0; i < values.length; i++) fields[columns[i]!] = values[i]!;
    } else {
      const unnamed = valuesUnderUnnamed(values, this.#unnamed);
      if (unnamed !== undefined) return this.#error(line, unnamed);
      for (let i = 0; i < values.length; i++) if (columns[i] !== '') fields[columns[i]!] = values[i]!;
    }
    return { location: { source: this.#source, line }, fields };
  }

  /**
   * A record csv-parse skipped, with its error. `current` is the record csv-parse is building (the same array for
   * every error of one record); `ending`: how a record that ends here meets the end of the input. Returns the item to
   * emit, or null.
   */
  skip(error: CsvError, current: unknown, field: { toString(encoding: 'utf8'): string } | undefined, at: CsvPosition = NOWHERE): RecordItem | null {
    if (this.stopped !== undefined) return null;
    const repeated = current !== undefined && current === this.#lastErrorRecord;
    this.#lastErrorRecord = current;
    if (error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') {
      // Reported already, and its end is counted where csv-parse drops it.
      if (repeated && current === this.#dropped) return null;
      // An empty line is no record: skipped as csv-parse skips it once it has read the header (from its next chunk on).
      if (isEmptyLine(error)) return null;
      const values = Array.isArray(error.record) ? (error.record as string[]) : [];
      const line = this.#lines.recordEnd(values, Number(error.lines));
      this.lastLine = line;
      if (repeated) return null;
      const expected = this.columns?.length ?? 0;
      const hint = values.length > expected ? ': a value holding the delimiter must be quoted' : '';
      return this.#error(line, `the row has ${values.length} fields but the header has ${expected}${hint}`);
    }
    const stops = error.code === 'CSV_QUOTE_NOT_CLOSED' || error.code === 'CSV_MAX_RECORD_SIZE';
    if (repeated && !stops) return null;
    const column = this.#columnName(error.column);
    // The line the error is on, and the line the record it is in starts on (before it, when a quoted value in the
    // record holds line breaks: csv-parse counts a CRLF there twice, so the breaks are counted here).
    const text = field?.toString('utf8') ?? '';
    const values = [...(Array.isArray(current) ? (current as string[]) : []), text];
    const { breaks, crlf } = lineBreaks(values);
    // csv-parse counts a line when it reads what follows its break: a break the value ends with is not counted yet
    // when the file ends there (an unclosed quote). Other errors are found at a character after the value's end.
    const lastChar = text.charCodeAt(text.length - 1);
    const pending = error.code === 'CSV_QUOTE_NOT_CLOSED' && (lastChar === 0x0a || lastChar === 0x0d) ? 1 : 0;
    // Until csv-parse drops this record at its end (droppedEnd), the CRLFs read in it are taken off its count; those
    // an earlier error of the record took off already are not taken off again.
    const uncounted = crlf - (repeated ? this.#droppedCrlf : 0);
    this.#dropped = current;
    this.#droppedCrlf = crlf;
    const here = this.#lines.lineOf(Number(error.lines)) - uncounted;
    const start = here - breaks + pending;
    this.#lines.skipDoubleCounted(uncounted);
    // The rest of the file is inside this record: the row is reported (unless it already was), then reading stops.
    if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
      if (this.cutting) {
        this.cutAt = start;
        return null;
      }
      const row = `a quoted value${column} opens in this row and is never closed: the file ends inside it, so nothing after it could be read`;
      const why = `a quoted value${column} opens on this line and is never closed, so the rest of the file is taken as part of it`;
      return this.#stop(start, why, repeated ? undefined : row, UNCLOSED_QUOTE_HINT, { reason: 'unclosed_quote', offset: at.offset });
    }
    if (error.code === 'CSV_MAX_RECORD_SIZE') {
      // Inside quotes, most often a quote left open: the value runs on over the lines after it.
      if (at.quoting) {
        const row = `a quoted value${column} opens in this row and is not closed within 1 MiB; reading stopped here`;
        const why = `a quoted value${column} opens on this line and is not closed within 1 MiB: is its closing quote missing?`;
        return this.#stop(start, why, repeated ? undefined : row, UNCLOSED_QUOTE_HINT, { reason: 'unclosed_quote', offset: at.offset });
      }
      const row = `the row is larger than 1 MiB without a quote open${column === '' ? '' : ` (the value${column} runs on)`}; reading stopped here`;
      const why = `the row on this line is larger than 1 MiB without a quote open: a value${column} runs on for over 1 MiB (a binary or damaged file, or a missing line break?)`;
      return this.#stop(start, why, repeated ? undefined : row, 'a catalog row is far smaller than 1 MiB: check the line named, and that the file is a text export', { reason: 'row_too_large', offset: at.offset });
    }
    // A quoted value that runs over several lines to a quote that does not close it: most often a quote left open
    // on the first line, which made the lines after it part of the value. The row is located where it starts.
    if (error.code === 'CSV_INVALID_CLOSING_QUOTE' && breaks > 0 && this.columns !== undefined) {
      return this.#error(
        start,
        `a quoted value${column} opens in this row and runs on to line ${here}, where a quote inside it is not doubled: lines ${start}-${here} are read as this one row (is a quote on line ${start} left open?)`,
      );
    }
    const message = ((): string => {
      switch (error.code) {
        case 'CSV_INVALID_CLOSING_QUOTE':
          return `a quote inside the quoted value${column} must be doubled ("")`;
        case 'INVALID_OPENING_QUOTE':
          return `a quote inside the unquoted value${column}: quote the whole value and double the quote ("")`;
        default:
          return error.message;
      }
    })();
    if (this.columns === undefined) return this.#stop(start, `the header row: ${message}`);
    // A row is located where it starts; the line of the problem is told when the row runs over several.
    return this.#error(start, here === start ? message : `${message}, on line ${here} (the row starts on line ${start})`);
  }

  /** True while a record with an error is being read: csv-parse drops it at its end, which droppedEnd is told. */
  get dropping(): boolean {
    return this.#dropped !== undefined;
  }

  /**
   * csv-parse dropped a record (its array) that had an error, at its end: its lines are counted as a record's (the
   * CRLFs in its values), so that the lines after it are right.
   */
  droppedEnd(record: unknown, parserLines: number): void {
    if (record === undefined || record !== this.#dropped) return;
    this.#dropped = undefined;
    this.#lines.skipDoubleCounted(-this.#droppedCrlf);
    this.lastLine = this.#lines.recordEnd(record as string[], parserLines);
  }

  /** The error of a source that held no header row at all. */
  empty(): SourceError {
    this.#stop(1, 'the file is empty; its first line should name the columns', undefined, 'a CSV catalog starts with a line naming its columns, e.g. sku,title,marketplace');
    return this.stopped!;
  }

  /**
   * The row at `line` is cut off: reading failed inside it. It is reported as such, never read as a shorter row;
   * before the header is read there is no row to report.
   */
  cutOff(line: number, why: string): RecordItem | null {
    if (this.stopped !== undefined || this.columns === undefined) return null;
    return this.#error(line, `the row is cut off: reading stopped inside it (${why})`);
  }

  #header(values: string[], line: number, invalid: boolean): RecordItem | null {
    const problems = invalid ? [INVALID_UTF8] : headerProblems(values);
    if (problems.length === 0) {
      this.columns = values;
      this.#unnamed = unnamedIndexes(values);
      this.#onHeader?.(values);
      return null;
    }
    return this.#stop(line, `the header row ${problems.join('; ')}`);
  }

  #columnName(column: unknown): string {
    if (typeof column !== 'number') return '';
    const name = this.columns?.[column];
    return name === undefined || name === '' ? ` (column ${column + 1})` : ` (column ${JSON.stringify(name)})`;
  }

  #error(line: number, error: string): RecordError {
    return { location: { source: this.#source, line }, error };
  }

  /**
   * Nothing after this can be read. Before the header (or in it) the keys are unknown and no row was read: the
   * error alone says why. A row that stops the reading is an item too (`row`), so it is reported like any row.
   */
  #stop(line: number, why: string, row?: string, hint?: string, stop?: ReadStop): RecordItem | null {
    const location = { source: this.#source, line };
    if (this.columns === undefined) {
      this.stopped = new SourceError(location, row === undefined ? why : `the header row: ${why}`, { hint });
      return null;
    }
    this.stopped = notReadToEnd(location, why, { hint }, stop);
    return row === undefined ? null : this.#error(line, row);
  }
}

/** Where csv-parse is in its input when it reports an error: the offset after the last record, and whether in quotes. */
export interface CsvPosition {
  offset?: number;
  quoting: boolean;
}

const NOWHERE: CsvPosition = { quoting: false };

const UNCLOSED_QUOTE_HINT = 'close the quote (a quote inside a quoted value is written twice: ""); if the file was cut short, export it again';
