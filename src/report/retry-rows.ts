import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type Pick from 'stream-json/filters/Pick.js';
import type StreamArray from 'stream-json/streamers/StreamArray.js';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { ConfigError, UsageError, type Location } from '../errors.js';
import { reportFormatOf } from './report-writer.js';

/**
 * The identity under which `--retry-failed` finds a row again: its SKU when it has one (`sku:<SKU>`), so a row is
 * found even if the catalog was re-exported with its lines in another order or the source is named another way;
 * its place (`at:<source>:<line>`) only when it has no SKU.
 */
export function retryIdentity(row: { location: Location; sku?: string | undefined }): string {
  if (row.sku !== undefined && row.sku !== '') return `sku:${row.sku}`;
  return `at:${row.location.source}:${row.location.line ?? row.location.record ?? ''}`;
}

/** The identities ({@link retryIdentity}) of the rows a previous `.csv`, `.json` or `.ndjson` report lists as failed or not_attempted. */
export async function readRetryRows(path: string): Promise<Set<string>> {
  const format = reportFormatOf(path);
  if (format === 'xml') {
    throw new UsageError(`--retry-failed ${path}: a JUnit report cannot be read back`, { hint: 'pass the .csv, .json or .ndjson report of the earlier run' });
  }
  const ids = new Set<string>();
  const take = (row: unknown): void => {
    if (typeof row !== 'object' || row === null) return;
    const { outcome, source, line, sku } = row as Record<string, unknown>;
    if (outcome !== 'failed' && outcome !== 'not_attempted') return;
    const lineNumber = typeof line === 'number' ? line : typeof line === 'string' && line !== '' ? Number(line) : undefined;
    const location: Location = { source: typeof source === 'string' ? source : '' };
    if (lineNumber !== undefined && Number.isFinite(lineNumber)) location.line = lineNumber;
    ids.add(retryIdentity({ location, sku: typeof sku === 'string' ? sku : undefined }));
  };
  // Fail before reading when the file is missing, with a message that says which.
  try {
    await (await open(path, 'r')).close();
  } catch (error) {
    throw new ConfigError(`--retry-failed ${path}: cannot read the report: ${(error as Error).message}`, { cause: error });
  }
  try {
    if (format === 'csv') await readCsv(path, take);
    else if (format === 'ndjson') await readNdjson(path, take);
    else await readJson(path, take);
  } catch (error) {
    throw new ConfigError(`--retry-failed ${path}: not a readable listings report: ${(error as Error).message}`, { cause: error });
  }
  return ids;
}

/** Undo the CSV report's formula neutralisation: `'=x` was written for `=x`. */
function unneutralise(value: string): string {
  if (value.charCodeAt(0) !== 0x27 || value.length < 2) return value;
  const c = value.charCodeAt(1);
  return c === 0x3d || c === 0x2b || c === 0x2d || c === 0x40 || c === 0x09 || c === 0x0d || c === 0x0a ? value.slice(1) : value;
}

async function readCsv(path: string, take: (row: unknown) => void): Promise<void> {
  await pipeline(createReadStream(path), parse({ columns: true, relax_column_count: true }), async (rows: AsyncIterable<Record<string, string>>) => {
    for await (const row of rows) {
      take({ outcome: row.outcome, source: unneutralise(row.source ?? ''), line: row.line, sku: unneutralise(row.sku ?? '') });
    }
  });
}

async function readNdjson(path: string, take: (row: unknown) => void): Promise<void> {
  // Loaded here: only --retry-failed with an NDJSON report reads one.
  const { createInterface } = await import('node:readline');
  let lineNumber = 0;
  for await (const line of createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    lineNumber++;
    if (line.trim() === '') continue;
    try {
      take(JSON.parse(line));
    } catch {
      throw new Error(`line ${lineNumber} is not JSON`);
    }
  }
}

async function readJson(path: string, take: (row: unknown) => void): Promise<void> {
  // Streamed: a million-row report is never held whole. stream-json is loaded only when a JSON report is read.
  const require = createRequire(import.meta.url);
  const { withParser } = require('stream-json/filters/Pick.js') as typeof Pick;
  const { streamArray } = require('stream-json/streamers/StreamArray.js') as typeof StreamArray;
  await pipeline(createReadStream(path), withParser({ filter: 'rows' }), streamArray(), async (items: AsyncIterable<{ value: unknown }>) => {
    for await (const item of items) take(item.value);
  });
}
