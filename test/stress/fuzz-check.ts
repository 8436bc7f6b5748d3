/**
 * How the fuzzing of test/stress/fuzz-readers.test.ts reads an input and judges what came out: the seed and run
 * counts, a watchdog for a reader stuck in synchronous code, a catalog read with a time limit, the invariants every
 * reading must keep, and the models of what a valid catalog must read back as.
 */
import type fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { isUtf8 } from 'node:buffer';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createGunzip } from 'node:zlib';
import { openCatalog } from '../../src/catalog/open-catalog.js';
import type { CatalogOptions, Draft, DraftValues, Format } from '../../src/catalog/types.js';
import { SourceError, UsageError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';
import { CATALOG_COLUMNS, physicalBreaks } from './fuzz-inputs.js';

/** The seed of every property (each adds its own offset): fixed by default so CI is reproducible, FUZZ_SEED to vary. */
export const SEED = Number.parseInt(process.env.FUZZ_SEED ?? '20250412', 10);
/** A factor on every property's number of runs: FUZZ_SCALE=10 for a long local hunt. */
export const SCALE = Number(process.env.FUZZ_SCALE ?? '1');
/** A reading of one small input must end within this; longer is a hang. */
export const READ_LIMIT_MS = Number(process.env.FUZZ_READ_LIMIT_MS ?? '5000');

/** Inputs fuzzed so far, by property, for the summary. */
export const counts = new Map<string, number>();

/**
 * fast-check parameters for the property numbered `index`: its own seed, its runs scaled, and a time limit (a minute
 * at scale 1) that bounds a run on a loaded machine and the shrinking of a failure (which is still reported).
 */
export function params(index: number, numRuns: number): fc.Parameters<unknown> {
  return { seed: SEED + index, numRuns: Math.max(1, Math.round(numRuns * SCALE)), interruptAfterTimeLimit: 60_000 * Math.max(1, SCALE) };
}

/** Of those, the inputs whose reading was checked against a known answer (beyond the invariants), by property. */
export const comparisons = new Map<string, number>();

export function count(property: string): void {
  counts.set(property, (counts.get(property) ?? 0) + 1);
}

export function compared(property: string): void {
  comparisons.set(property, (comparisons.get(property) ?? 0) + 1);
}

/**
 * A watchdog thread for a reading stuck in synchronous code (an endless loop), which no timer on the blocked thread
 * could see: once a reading has been under way for `limitMs`, it prints which input and kills the process, so the
 * run fails instead of hanging CI. The input's file is left in place for the post-mortem.
 */
export class Watchdog {
  readonly #state = new Int32Array(new SharedArrayBuffer(8));
  readonly #label = new Uint8Array(new SharedArrayBuffer(4096));
  readonly #worker: Worker;

  constructor(limitMs = 60_000) {
    this.#worker = new Worker(
      `
      const { workerData } = require('node:worker_threads');
      const { writeSync } = require('node:fs');
      const { state, label, limitMs } = workerData;
      let seen = -1, since = Date.now();
      setInterval(() => {
        const generation = Atomics.load(state, 0);
        if (Atomics.load(state, 1) === 0 || generation !== seen) { seen = generation; since = Date.now(); return; }
        if (Date.now() - since < limitMs) return;
        const text = Buffer.from(label).toString('utf8').replace(/\\0+$/, '');
        writeSync(2, '\\nfuzz watchdog: a reader has been stuck for ' + limitMs + ' ms (synchronous code, no timer can end it): ' + text + '\\n');
        process.kill(process.pid, 'SIGKILL');
      }, 500);
      `,
      { eval: true, workerData: { state: this.#state, label: this.#label, limitMs } },
    );
    this.#worker.unref();
  }

  /** A reading starts, of the input named by `label`. */
  start(label: string): void {
    this.#label.fill(0);
    this.#label.set(Buffer.from(label, 'utf8').subarray(0, this.#label.length));
    Atomics.add(this.#state, 0, 1);
    Atomics.store(this.#state, 1, 1);
  }

  stop(): void {
    Atomics.store(this.#state, 1, 0);
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}

/** Where the inputs are written, one file a run, removed once read (a failing one is kept). */
export class InputFiles {
  readonly dir = tempDir('listings-fuzz-');
  #next = 0;

  write(bytes: Buffer, extension: string): string {
    const path = join(this.dir, `input-${++this.#next}${extension}`);
    writeFileSync(path, bytes);
    return path;
  }

  remove(path: string): void {
    rmSync(path, { force: true });
  }
}

/** What reading a catalog gave: every draft, and the error that ended it (at the open, or part-way). */
export interface Reading {
  drafts: Draft[];
  error: unknown;
  /** The error was thrown by openCatalog, before any draft. */
  atOpen: boolean;
  timedOut: boolean;
  ms: number;
}

/**
 * Reads a catalog through openCatalog, every draft of it, within `limitMs` (an abort ends a reading that takes
 * longer, and it is reported as timed out). Never throws.
 */
export async function readCatalog(path: string, options: CatalogOptions, watchdog: Watchdog | undefined, limitMs = READ_LIMIT_MS): Promise<Reading> {
  const started = performance.now();
  const drafts: Draft[] = [];
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), limitMs)));
  const work = (async (): Promise<{ error: unknown; atOpen: boolean }> => {
    let catalog;
    try {
      catalog = await openCatalog(path, { ...options, signal: abort.signal });
    } catch (error) {
      return { error, atOpen: true };
    }
    try {
      for await (const draft of catalog.drafts) drafts.push(draft);
    } catch (error) {
      return { error, atOpen: false };
    }
    return { error: undefined, atOpen: false };
  })();
  watchdog?.start(path);
  try {
    const outcome = await Promise.race([work, timeout]);
    const ms = performance.now() - started;
    if (outcome === 'timeout') {
      abort.abort();
      return { drafts, error: undefined, atOpen: false, timedOut: true, ms };
    }
    return { drafts, ...outcome, timedOut: false, ms };
  } finally {
    watchdog?.stop();
    clearTimeout(timer);
  }
}

/**
 * The bytes a reader sees in a file: decompressed as the reader does (gzip by its magic bytes, at most twice), as
 * far as the compressed data goes. `complete` is false when decompressing failed (cut or damaged data).
 */
export async function plainContent(file: Buffer): Promise<{ content: Buffer; complete: boolean }> {
  let content = file;
  let complete = true;
  for (let round = 0; round < 2 && content.length >= 2 && content[0] === 0x1f && content[1] === 0x8b; round++) {
    const inner = await gunzipLoosely(content);
    content = inner.content;
    complete &&= inner.complete;
    if (!inner.complete) break;
  }
  return { content, complete };
}

/**
 * node:zlib's gunzip. A failing write drops the output it made: when the data is damaged (or bytes that are not gzip
 * data follow it), it is decoded again, what went in before the failing write at once and the rest one byte a write,
 * so that the write that fails makes no output and every byte the data holds before the failure is counted.
 */
async function gunzipLoosely(data: Buffer): Promise<{ content: Buffer; complete: boolean }> {
  const whole = await gunzipIn(data, data.length);
  // node:zlib takes whatever follows the data for padding when it starts with a zero byte; only zeros are.
  if (whole.complete) return { ...whole, complete: data.subarray(whole.consumed).every((byte) => byte === 0) };
  if (whole.code !== 'Z_DATA_ERROR') return whole;
  const again = await gunzipIn(data, 1, whole.consumed);
  return again.content.length > whole.content.length ? again : whole;
}

function gunzipIn(data: Buffer, piece: number, first = 0): Promise<{ content: Buffer; complete: boolean; code?: unknown; consumed: number }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const gunzip = createGunzip();
    gunzip.on('data', (chunk: Buffer) => chunks.push(chunk));
    gunzip.once('end', () => resolve({ content: Buffer.concat(chunks), complete: true, consumed: gunzip.bytesWritten }));
    gunzip.once('error', (error: NodeJS.ErrnoException) => resolve({ content: Buffer.concat(chunks), complete: false, code: error.code, consumed: gunzip.bytesWritten }));
    if (first > 0) gunzip.write(data.subarray(0, first));
    for (let at = first; at < data.length; at += piece) gunzip.write(data.subarray(at, at + piece));
    gunzip.end();
  });
}

/** The lines of a text: its line breaks (CRLF, CR, LF once each) plus one. */
export function physicalLines(content: Buffer): number {
  return physicalBreaks(content) + 1;
}

/** What a message written for a person must never hold: a value printed without being there. */
const UNWRITTEN = /\bundefined\b|\[object /;
const MAX_MESSAGE = 4000;

function checkMessage(message: unknown, what: string): void {
  if (typeof message !== 'string' || message.trim() === '') throw new Error(`${what}: no message (${String(message)})`);
  if (message.length > MAX_MESSAGE) throw new Error(`${what}: a message of ${message.length} characters: ${message.slice(0, 300)}...`);
  const bad = UNWRITTEN.exec(message);
  if (bad !== null) throw new Error(`${what}: the message holds ${JSON.stringify(bad[0])}: ${message.slice(0, 300)}`);
}

function isTrimmedText(value: unknown): boolean {
  return typeof value === 'string' && value !== '' && value === value.trim();
}

function checkValues(values: DraftValues, where: string): void {
  for (const [key, value] of Object.entries(values)) {
    if (key === 'images_source') {
      if (!Array.isArray(value) || value.length === 0 || !value.every(isTrimmedText)) throw new Error(`${where}: images_source ${JSON.stringify(value)}`);
    } else if (key === 'overrides') {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value as object).length === 0) throw new Error(`${where}: overrides ${JSON.stringify(value)}`);
    } else if (!isTrimmedText(value)) throw new Error(`${where}: ${key} is ${JSON.stringify(value)}, not trimmed text`);
  }
}

/** What the invariants need to know of an input. */
export interface InputFacts {
  path: string;
  /** The format the file's name announces; undefined for one told by its content. */
  format: Format | undefined;
  /** The bytes the reader sees (decompressed). */
  content: Buffer;
  preset?: CatalogOptions['preset'];
}

function describeDraft(draft: Draft): string {
  return JSON.stringify({ location: draft.location, values: draft.values, issues: draft.issues, rows: draft.rows });
}

/**
 * The invariants of every reading, whatever the input: it ends in time; what ends it, if anything, is one typed
 * error (SourceError, UsageError) with a location in this file or a message; every draft is located in this file
 * (a line within the text for CSV, TSV and NDJSON; the record's number for JSON, numbered 1, 2, 3 ...), in input
 * order; its issues and values are well formed; the drafts' rows never exceed the lines of the input. Throws an
 * Error saying which was broken.
 */
export function checkReading(reading: Reading, facts: InputFacts): void {
  const { drafts, error } = reading;
  if (reading.timedOut) throw new Error(`the reading did not end within ${READ_LIMIT_MS} ms (${drafts.length} drafts read): a hang`);
  if (reading.ms > READ_LIMIT_MS) throw new Error(`the reading took ${Math.round(reading.ms)} ms, over ${READ_LIMIT_MS} ms`);
  const lines = physicalLines(facts.content);
  if (error !== undefined) {
    if (!(error instanceof SourceError) && !(error instanceof UsageError)) {
      const name = error instanceof Error ? `${error.constructor.name}: ${error.message}` : JSON.stringify(error);
      throw new Error(`the reading ended with ${name}, not a SourceError or UsageError${error instanceof Error ? `\n${error.stack}` : ''}`);
    }
    checkMessage(error.message, error.constructor.name);
    if (error.hint !== undefined) checkMessage(error.hint, 'hint');
    if (error instanceof SourceError) {
      const location = error.location;
      if (location.source !== facts.path) throw new Error(`SourceError located in ${location.source}, not ${facts.path}: ${error.message}`);
      if (location.line !== undefined && !(Number.isInteger(location.line) && location.line >= 1 && location.line <= lines + 1)) {
        throw new Error(`SourceError at line ${location.line} of a ${lines}-line input: ${error.message}`);
      }
      if (location.record !== undefined && !(Number.isInteger(location.record) && location.record >= 1 && location.record <= drafts.length + 1)) {
        throw new Error(`SourceError at record ${location.record} after ${drafts.length} drafts: ${error.message}`);
      }
      const last = drafts.at(-1)?.location;
      const ordered = facts.preset === undefined && last !== undefined;
      if (ordered && location.line !== undefined && last.line !== undefined && location.line < last.line) {
        throw new Error(`SourceError at line ${location.line}, before the last draft's line ${last.line}: ${error.message}`);
      }
      if (ordered && location.record !== undefined && last.record !== undefined && location.record < last.record) {
        throw new Error(`SourceError at record ${location.record}, before the last draft's record ${last.record}: ${error.message}`);
      }
    }
  }
  if (reading.atOpen && drafts.length > 0) throw new Error('drafts from a catalog that failed to open');
  let rows = 0;
  let previous: Draft | undefined;
  const seenLines = new Set<number>();
  drafts.forEach((draft, index) => {
    const where = `draft ${index + 1} ${describeDraft(draft)}`;
    const { location } = draft;
    if (location.source !== facts.path) throw new Error(`${where}: located in ${location.source}, not ${facts.path}`);
    const text = location.line !== undefined;
    if (text === (location.record !== undefined)) throw new Error(`${where}: a location needs a line or a record, not both or neither`);
    if (facts.format !== undefined && text !== (facts.format !== 'json')) throw new Error(`${where}: a ${facts.format} location must be a ${facts.format === 'json' ? 'record' : 'line'}`);
    if (text) {
      const line = location.line!;
      if (!Number.isInteger(line) || line < 1 || line > lines) throw new Error(`${where}: line ${line} of a ${lines}-line input`);
      if (seenLines.has(line)) throw new Error(`${where}: a second draft at line ${line}`);
      seenLines.add(line);
      // In input order; but the presets hold a product's rows: Shopify lets an unreadable row (or one without a
      // Handle) pass the product being read, and WooCommerce lists a variable product without variations at the end.
      const ordered = facts.preset === undefined || (facts.preset === 'shopify' && draft.issues.length === 0);
      const before = previous?.location.line;
      if (ordered && before !== undefined && line <= before) throw new Error(`${where}: line ${line} after line ${before}`);
    } else if (facts.preset === undefined && location.record !== index + 1) {
      throw new Error(`${where}: record ${location.record} where record ${index + 1} comes`);
    }
    if (!Array.isArray(draft.issues)) throw new Error(`${where}: issues is not a list`);
    for (const issue of draft.issues) {
      if (typeof issue.path !== 'string' || issue.path === '') throw new Error(`${where}: an issue without a path`);
      checkMessage(issue.message, `${where}: issue ${issue.path}`);
    }
    checkValues(draft.values, where);
    if (draft.rows !== undefined && !(Number.isInteger(draft.rows) && draft.rows >= 1)) throw new Error(`${where}: rows ${draft.rows}`);
    if (draft.skip !== undefined) checkMessage(draft.skip, `${where}: skip`);
    rows += draft.rows ?? 1;
    if (facts.preset === undefined || draft.issues.length === 0) previous = draft;
  });
  const text = drafts.some((draft) => draft.location.line !== undefined);
  if (text && rows > lines) throw new Error(`the drafts account for ${rows} rows, more than the ${lines} lines of the input`);
  if (!text && drafts.length > facts.content.length) throw new Error(`${drafts.length} drafts from ${facts.content.length} bytes`);
}

/**
 * The draft values the default mapping promises for a record (src/catalog/mapping/values.ts): text is trimmed and
 * empty text is absent; numbers become their text; `images_source` is split on `|` (the default list separator)
 * into trimmed, non-empty parts; `overrides.KEY` columns give trimmed override values, empty ones absent.
 */
export function expectedValues(fields: Readonly<Record<string, unknown>>): DraftValues {
  const values: Record<string, unknown> = {};
  const text = (raw: unknown): string | undefined => {
    if (typeof raw === 'number') return String(raw);
    if (typeof raw !== 'string') return undefined;
    const value = raw.trim();
    return value === '' ? undefined : value;
  };
  for (const field of ['sku', 'title', 'marketplace', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id']) {
    const value = text(fields[field]);
    if (value !== undefined) values[field] = value;
  }
  const images = fields.images_source;
  if (typeof images === 'string') {
    const parts = images
      .split('|')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    if (parts.length > 0) values.images_source = parts;
  }
  const overrides: Record<string, string> = {};
  for (const column of Object.keys(fields)) {
    if (!column.startsWith('overrides.') || column === 'overrides.') continue;
    const value = text(fields[column]);
    if (value !== undefined) overrides[column.slice('overrides.'.length)] = value;
  }
  if (Object.keys(overrides).length > 0) values.overrides = overrides;
  return values;
}

/** A row as a reader must give it: its line (or record), and either its values or that it is an error. */
export interface ExpectedRow {
  line: number;
  values?: DraftValues;
  error?: true;
}

/** A draft in the form of ExpectedRow, to compare. */
export function asExpected(draft: Draft): ExpectedRow {
  const line = draft.location.line ?? draft.location.record ?? 0;
  return draft.issues.length > 0 ? { line, error: true } : { line, values: draft.values };
}

/**
 * The expected rows of a written catalog under the default mapping, on their lines (CSV, NDJSON) or numbered as records
 * (JSON): one per record, but CSV rows whose cells are all empty.
 */
export function expectedRows(records: ReadonlyArray<Record<string, string>>, lines: readonly number[] | 'records', format: 'csv' | 'ndjson' | 'json'): ExpectedRow[] {
  const rows: ExpectedRow[] = [];
  records.forEach((record, i) => {
    // A CSV row whose cells are all empty is no row; a JSON record is one, whatever it holds.
    if (format === 'csv' && CATALOG_COLUMNS.every((column) => (record[column] ?? '') === '')) return;
    rows.push({ line: lines === 'records' ? i + 1 : lines[i]!, values: expectedValues(record) });
  });
  return rows;
}

/**
 * What the CSV reader must make of a text, by a reference reading with csv-parse on its own (the same rules: BOM
 * dropped, the delimiter given, CRLF, LF and a bare CR each ending a record, any number of fields per record): undefined when the reference cannot read the text
 * either (a quote problem), or when its header is not one the default mapping reads. Otherwise: for every record
 * after the header, in order, on the line where it starts (from the bytes before it), a row with its mapped values,
 * or an error for a record whose number of fields is not the header's (an empty line excepted) or that holds bytes
 * that are not UTF-8; an empty line, and a row whose cells are all empty, gives nothing.
 */
export function referenceCsv(content: Buffer, delimiter: string): { header: string[]; rows: ExpectedRow[]; items: number } | undefined {
  const options = { delimiter, bom: true, info: true, relax_column_count: true, record_delimiter: ['\r\n', '\n', '\r'] };
  // TSV: a quote inside an unquoted value is literal, as csv-parse's relax_quotes reads it. relax_quotes also reads a
  // quoted value that a quote closes early (`"abc"x`) as `"abcx`, which the reader refuses: such a text has no reference.
  const tsv = delimiter === '\t';
  if (tsv && closesQuotedValueEarly(content, options)) return undefined;
  let records: Array<{ record: string[]; info: { bytes: number } }>;
  try {
    records = parse(content, { ...options, relax_quotes: tsv }) as unknown as Array<{ record: string[]; info: { bytes: number } }>;
  } catch {
    return undefined;
  }
  const first = records[0];
  if (first === undefined) return undefined;
  const header = first.record;
  const invalid = !isUtf8(content);
  const rows: ExpectedRow[] = [];
  let items = 0;
  let start = first.info.bytes;
  for (const { record, info } of records.slice(1)) {
    // Counted from the start each time: a CRLF may be split between the end of one record and the next.
    const here = 1 + physicalBreaks(content, 0, start);
    start = info.bytes;
    if (record.length !== header.length) {
      if (record.length === 1 && record[0] === '') continue;
      rows.push({ line: here, error: true });
    } else if (header.length > 1 && record.every((value) => value === '')) continue;
    else if (invalid && record.some((value) => value.includes('\uFFFD'))) rows.push({ line: here, error: true });
    else {
      const fields: Record<string, string> = {};
      header.forEach((name, i) => (fields[name] = record[i]!));
      rows.push({ line: here, values: expectedValues(fields) });
    }
    items++;
  }
  return { header, rows, items };
}

/**
 * Whether a quote closes a quoted value before its end anywhere in the text. Until the first such quote, a strict
 * reading (whose errors are skipped) and a relax_quotes one are in the same state, so the strict one finds it.
 */
function closesQuotedValueEarly(content: Buffer, options: Record<string, unknown>): boolean {
  let early = false;
  try {
    parse(content, { ...options, skip_records_with_error: true, on_skip: (error: { code?: string } | undefined) => void (early ||= error?.code === 'CSV_INVALID_CLOSING_QUOTE') });
  } catch {
    // An error the strict reading stops at (an unclosed quote) is the relax_quotes reading's too.
  }
  return early;
}
