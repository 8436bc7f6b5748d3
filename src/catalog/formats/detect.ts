import type { Format } from '../types.js';

const BY_EXTENSION: Readonly<Record<string, Format>> = {
  csv: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  json: 'json',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
};

const BY_CONTENT_TYPE: Readonly<Record<string, Format>> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/comma-separated-values': 'csv',
  'text/tab-separated-values': 'tsv',
  'application/json': 'json',
  'text/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/x-jsonl': 'ndjson',
  'application/jsonlines': 'ndjson',
  'application/x-jsonlines': 'ndjson',
};

/** True when a file name (or URL path, or S3 key) ends in `.gz`. */
export function isGzipName(name: string): boolean {
  return name.toLowerCase().endsWith('.gz');
}

/** The format a name announces by its extension, looking past a trailing `.gz`: `catalog.csv.gz` -> csv. */
export function formatFromName(name: string): Format | undefined {
  let lower = name.toLowerCase();
  if (lower.endsWith('.gz')) lower = lower.slice(0, -3);
  const dot = lower.lastIndexOf('.');
  if (dot < 0 || lower.indexOf('/', dot) >= 0) return undefined;
  return BY_EXTENSION[lower.slice(dot + 1)];
}

/** The format a Content-Type announces, when it names one of ours (`text/csv; charset=utf-8` -> csv). */
export function formatFromContentType(contentType: string | undefined): Format | undefined {
  if (contentType === undefined) return undefined;
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return BY_CONTENT_TYPE[essence];
}

/** The answer of content sniffing: a format, more bytes needed, or content none of our formats can be. */
export type Sniffed = Format | 'more' | 'binary';

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * Tells the format from the first bytes: `[` is JSON; `{` is NDJSON when the first line is a whole JSON object,
 * else JSON (a document spread over lines, or a minified document longer than any NDJSON line may be); NUL bytes
 * are binary (UTF-16 text is decoded before it is sniffed); anything else is CSV. `more` asks for a longer head: the first
 * line starts with `{` and has not ended within it.
 */
export function sniffFormat(head: Buffer, ended: boolean): Sniffed {
  let start = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  if (head.indexOf(0) >= 0) return 'binary';
  while (start < head.length && isSpace(head[start]!)) start++;
  const first = head[start];
  if (first === 0x5b) return 'json';
  if (first !== 0x7b) return 'csv';
  const newline = head.indexOf(0x0a, start);
  if (newline < 0 && !ended) return 'more';
  const line = head.subarray(start, newline < 0 ? head.length : newline).toString('utf8');
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? 'ndjson' : 'json';
  } catch {
    return 'json';
  }
}
