import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { FifoError, openToRead } from '../fs/open-to-read.js';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { ConfigError, UsageError, formatLocation, type Location } from '../errors.js';
import { reportFormatOf } from './report-writer.js';
import { MAX_RECORD_BYTES } from '../catalog/formats/limits.js';
import type { RecordItem } from '../catalog/types.js';
import { printable } from '../printable.js';
import { formulaLike } from './csv.js';
import { JsonNumber } from '../json-number.js';

/** What `--retry-failed` learns from a report, per source as the report names it. */
export interface RetryReport {
  path: string;
  sources: Map<string, ReportedSource>;
  /** The report names each row's marketplace (reports of older versions do not: their rows match on any marketplace). */
  marketplaces: boolean;
}

interface ReportedSource {
  /** `line\0sku\0marketplace` of the rows listed as failed or not_attempted. */
  retry: Set<string>;
  /** The last line (record) the report reached: rows after it were never read by that run. */
  lastLine: number;
  /**
   * The identities the report lists at its last line. A row fanned out to several marketplaces has one report line
   * per marketplace; a run stopped between them never read the rest, which are as unreached as the lines after.
   */
  atLastLine: Set<string>;
  /** The same without the marketplace: the rows (place and SKU) the report reached at its last line. */
  rowsAtLastLine: Set<string>;
}

/**
 * A row's identity in its source: its place, its SKU and its marketplace (one input row sent to several
 * marketplaces is several listings). `marketplace` is '' for a report written before reports named it.
 */
function identity(line: number | undefined, sku: string | undefined, marketplace: string): string {
  return `${line ?? ''}\u0000${shown(sku) ?? ''}\u0000${shown(marketplace)}`;
}

/**
 * A name as every report writes it (a control character as `\uXXXX`): the run's names and the report's (this
 * version's, or an older JSON report's raw ones) are compared in this form. Escaping twice changes nothing.
 */
function shown<T extends string | undefined>(text: T): T {
  return (text === undefined ? text : printable(text, { lines: false })) as T;
}

/**
 * Decides, row by row, what `--retry-failed` sends: a row the report lists as failed or not_attempted at the same
 * place with the same SKU and marketplace (a SKU alone would also resend the published twin of a duplicated SKU, or
 * the same row's listing on another marketplace), and every row the report never reached (the run that wrote it
 * stopped before reading them, or between the marketplaces of its last row). Counts what it matched, so a
 * source that changed since the report can be told.
 */
export class RetrySelection {
  readonly #report: RetryReport;
  readonly #runSources: readonly string[];
  /** Rows chosen because the report lists them. */
  matched = 0;
  /** Rows chosen because the report never reached them. */
  beyondReport = 0;

  constructor(report: RetryReport, runSources: readonly string[]) {
    this.#report = report;
    this.#runSources = runSources;
  }

  /** Rows the report lists to retry. */
  get listed(): number {
    let listed = 0;
    for (const source of this.#report.sources.values()) listed += source.retry.size;
    return listed;
  }

  selects(row: { location: Location; sku?: string | undefined; marketplace?: string | undefined }): boolean {
    const reported = this.#sourceOf(row.location.source);
    const line = row.location.line ?? row.location.record;
    if (reported === undefined || (line !== undefined && line > reported.lastLine)) {
      this.beyondReport++;
      return true;
    }
    const id = identity(line, row.sku === '' ? undefined : row.sku, this.#report.marketplaces ? (row.marketplace ?? '') : '');
    // The row the report stopped in (same place, same SKU), on a marketplace it never reached.
    if (line !== undefined && line === reported.lastLine && !reported.atLastLine.has(id) && reported.rowsAtLastLine.has(identity(line, row.sku === '' ? undefined : row.sku, ''))) {
      this.beyondReport++;
      return true;
    }
    if (!reported.retry.has(id)) return false;
    this.matched++;
    return true;
  }

  /** The report's entry for a source: by its name, or the report's only source when the run reads only one. */
  #sourceOf(source: string): ReportedSource | undefined {
    const sources = this.#report.sources;
    const named = sources.get(shown(source));
    if (named !== undefined || sources.size !== 1 || this.#runSources.length !== 1) return named;
    return sources.values().next().value;
  }
}

/** The rows a previous `.csv`, `.json` or `.ndjson` report lists as failed or not_attempted, and how far it got. */
export async function readRetryRows(path: string): Promise<RetryReport> {
  const format = reportFormatOf(path);
  const setting = { key: 'retryFailed', value: path };
  if (format === 'xml') {
    throw new UsageError((name) => `${name('retryFailed')} ${path}: a JUnit report cannot be read back`, { hint: 'pass the .csv, .json or .ndjson report of the earlier run', setting });
  }
  if (format === 'html') {
    throw new UsageError((name) => `${name('retryFailed')} ${path}: an HTML report cannot be read back (it is a page to read, and lists only the first rows that failed)`, {
      hint: 'pass the .csv, .json or .ndjson report of the earlier run',
      setting,
    });
  }
  const report: RetryReport = { path, sources: new Map(), marketplaces: false };
  let rows = 0;
  const take = (row: unknown): void => {
    rows++;
    if (typeof row !== 'object' || row === null) return;
    const { outcome, source, line, sku, marketplace } = row as Record<string, unknown>;
    if (typeof outcome !== 'string' || outcome === 'not_read') return;
    const name = typeof source === 'string' ? shown(source) : '';
    const at = lineNumberOf(line, rows);
    let reported = report.sources.get(name);
    if (reported === undefined) report.sources.set(name, (reported = { retry: new Set(), lastLine: 0, atLastLine: new Set(), rowsAtLastLine: new Set() }));
    // A report of this version has the marketplace key or column on every row (null or empty when a row had none).
    if (marketplace !== undefined) report.marketplaces = true;
    const skuOf = typeof sku === 'string' && sku !== '' ? sku : undefined;
    const id = identity(at, skuOf, typeof marketplace === 'string' ? marketplace : '');
    if (at !== undefined && at > reported.lastLine) {
      reported.lastLine = at;
      reported.atLastLine = new Set();
      reported.rowsAtLastLine = new Set();
    }
    if (at !== undefined && at === reported.lastLine) {
      reported.atLastLine.add(id);
      reported.rowsAtLastLine.add(identity(at, skuOf, ''));
    }
    if (outcome !== 'failed' && outcome !== 'not_attempted') return;
    reported.retry.add(id);
  };
  // Fail before reading when the file is missing (or a FIFO, found without waiting on it), with a message that says which.
  let handle: FileHandle;
  try {
    const opened = await openToRead(path);
    handle = opened.handle;
    if (opened.fifo) {
      await handle.close();
      throw new FifoError();
    }
  } catch (error) {
    throw new ConfigError((name) => `${name('retryFailed')} ${path}: cannot read the report: ${(error as Error).message}`, { cause: error, setting });
  }
  // Read from the handle opened and checked, not from the path again (which could have been swapped meanwhile).
  const input = handle.createReadStream();
  try {
    if (format === 'csv') await readCsv(input, take);
    else if (format === 'ndjson') await readNdjson(input, path, take);
    else await readJson(input, path, take);
  } catch (error) {
    throw new ConfigError((name) => `${name('retryFailed')} ${path}: not a readable listings report: ${(error as Error).message}`, { cause: error, setting });
  } finally {
    input.destroy();
    await handle.close().catch(() => undefined);
  }
  return report;
}

/**
 * A report row's line (or record) number; undefined when it has none. Any other value (0, -3, 2.5, 1e400, text) is
 * not one this tool writes: taken as no place, it would make every row of the source look unreached, and all be sent
 * again, so the report is refused.
 */
function lineNumberOf(line: unknown, row: number): number | undefined {
  if (line === undefined || line === null || line === '') return undefined;
  const value = typeof line === 'number' ? line : typeof line === 'string' && /^[0-9]+$/.test(line) ? Number(line) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= 1) return value;
  const written = line instanceof JsonNumber ? line.text : typeof line === 'string' || typeof line === 'number' ? String(line) : JSON.stringify(line) ?? typeof line;
  throw new Error(`row ${row}: its line ${JSON.stringify(written.slice(0, 40))} is not a line number (a whole number from 1)`);
}

/** Undo the CSV report's formula neutralisation (`csvCell`): `'=x` was written for `=x`, `''=x` for `'=x`. */
function unneutralise(value: string): string {
  return value.charCodeAt(0) === 0x27 && formulaLike(value.slice(1)) ? value.slice(1) : value;
}

async function readCsv(input: Readable, take: (row: unknown) => void): Promise<void> {
  await pipeline(input, parse({ columns: true, relax_column_count: true, max_record_size: MAX_RECORD_BYTES }), async (rows: AsyncIterable<Record<string, string>>) => {
    for await (const row of rows) {
      const marketplace = row.marketplace === undefined ? {} : { marketplace: unneutralise(row.marketplace) };
      take({ outcome: row.outcome, source: unneutralise(row.source ?? ''), line: row.line, sku: unneutralise(row.sku ?? ''), ...marketplace });
    }
  });
}

/** A row the report reader could not read: the report is not one this tool wrote. */
function rowOf(item: RecordItem): Record<string, unknown> {
  if ('error' in item) throw new Error(`${formatLocation(item.location)}: ${item.error}`);
  return item.fields;
}

// Both read by the catalog's readers (loaded only when such a report is read): every line or record bounded in size
// and depth, so an edited report, or one linked to /dev/zero, is refused as it streams, never held whole.
async function readNdjson(input: Readable, path: string, take: (row: unknown) => void): Promise<void> {
  const { ndjsonRecords } = await import('../catalog/formats/ndjson.js');
  for await (const item of ndjsonRecords(input, { source: path })) take(rowOf(item));
}

async function readJson(input: Readable, path: string, take: (row: unknown) => void): Promise<void> {
  const { jsonRecords } = await import('../catalog/formats/json.js');
  for await (const item of jsonRecords(input, { source: path, jsonPath: 'rows' })) take(rowOf(item));
}
