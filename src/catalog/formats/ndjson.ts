import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import type { RecordItem } from '../types.js';
import { batchedRecords, type BatchedRecords } from './batches.js';
import { failureReason, isAbort, notReadToEnd, readFailure } from '../sources/read-failure.js';
import { describeJson, isJsonObject } from './json-values.js';
import { MAX_RECORD_BYTES, MAX_SKIPPED_LINE_BYTES } from './limits.js';
import { INVALID_UTF8 } from './utf8-watch.js';
import { JsonDepthError, JsonDuplicateKeyError, parseJsonRecord } from '../../json-text.js';

/** Options of the NDJSON reader. */
export interface NdjsonReadOptions {
  /** Source name for locations. */
  source: string;
  /** The longest line held in memory; a longer one is an error item. Default MAX_RECORD_BYTES (1 MiB). */
  maxLineBytes?: number;
  /** How far a line over the limit is skipped looking for its end before reading stops. Default MAX_SKIPPED_LINE_BYTES. */
  maxSkippedBytes?: number;
}

function isBlank(text: string): boolean {
  return text.trim() === '';
}

/** One line's bytes (without its LF) as a record item, or null for a blank line. */
export function ndjsonLine(bytes: Buffer, line: number, source: string): RecordItem | null {
  let start = line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let end = bytes.length;
  if (end > start && bytes[end - 1] === 0x0d) end--;
  if (start > end) start = end;
  const slice = bytes.subarray(start, end);
  const text = slice.toString('utf8');
  if (isBlank(text)) return null;
  const location = { source, line };
  if (!isUtf8(slice)) return { location, error: `the line ${INVALID_UTF8}` };
  let value: unknown;
  try {
    value = parseJsonRecord(text);
  } catch (error) {
    if (error instanceof JsonDepthError || error instanceof JsonDuplicateKeyError) return { location, error: `the line ${error.message}` };
    return { location, error: `the line is not valid JSON: ${(error as Error).message}` };
  }
  if (!isJsonObject(value)) return { location, error: `the line holds ${describeJson(value)}, not a JSON object` };
  return { location, fields: value };
}

/**
 * True when JSON text ends inside a value it opened (an object, array or string left open): the text was cut,
 * rather than written wrong. Only a last line that failed to parse is looked at, so this is off the hot path.
 */
export function endsInsideJson(bytes: Buffer): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) depth++;
    else if (byte === 0x7d || byte === 0x5d) {
      if (--depth < 0) return false;
    }
  }
  return inString || depth > 0;
}

/**
 * Reads NDJSON (JSON Lines): one object per line, blank lines skipped, every line's problem reported at its line
 * and reading going on. A line over the size limit is reported as soon as it passes the limit (a line with no end
 * too), and never held in memory. The records can be read once, one by one or in batches (those of one input chunk).
 *
 * A cut input ends the records with a SourceError located at the line it cuts, after that line as an error item:
 * the input fails part-way (a cut gzip file, a reset connection), or its last line has no line break and ends
 * inside the JSON it opened (a file cut while it was written). A bad line followed by a line break is a bad row
 * like any other, and reading goes on.
 */
export function ndjsonRecords(input: Readable, options: NdjsonReadOptions): BatchedRecords {
  return batchedRecords(() => ndjsonBatches(input, options));
}

async function* ndjsonBatches(input: Readable, options: NdjsonReadOptions): AsyncGenerator<RecordItem[]> {
  const { source, maxLineBytes = MAX_RECORD_BYTES, maxSkippedBytes = MAX_SKIPPED_LINE_BYTES } = options;
  const tooLong = (line: number): RecordItem => ({ location: { source, line }, error: `the line is longer than ${maxLineBytes / 1024 / 1024} MiB` });
  let line = 0;
  let parts: Buffer[] = [];
  let partLength = 0;
  let oversized = false;
  let skipped = 0;
  // The last line ended at a CR that closed its chunk: an LF opening the next chunk belongs to that line end.
  let crClosedChunk = false;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      const items: RecordItem[] = [];
      let start = crClosedChunk && chunk[0] === 0x0a ? 1 : 0;
      crClosedChunk = false;
      // The next LF and CR from `start`, each searched again only once passed (a file of one kind never pays twice).
      let lf = chunk.indexOf(0x0a, start);
      let cr = chunk.indexOf(0x0d, start);
      for (;;) {
        if (lf !== -1 && lf < start) lf = chunk.indexOf(0x0a, start);
        if (cr !== -1 && cr < start) cr = chunk.indexOf(0x0d, start);
        // CRLF, LF and a bare CR each end a line: JSON text holds no raw CR or LF inside a string.
        const newline = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
        const stop = newline < 0 ? chunk.length : newline;
        if (!oversized && partLength + (stop - start) > maxLineBytes) {
          // Told now, not at the line's end: a line with no end (/dev/zero) is told, and a reader may stop on it.
          oversized = true;
          skipped = partLength;
          parts = [];
          partLength = 0;
          items.push(tooLong(line + 1));
        }
        if (oversized && (skipped += stop - start) > maxSkippedBytes) {
          if (items.length > 0) yield items;
          throw notReadToEnd({ source, line: line + 1 }, `the line runs on for over ${maxSkippedBytes / 1024 / 1024} MiB without a line break`, {
            hint: 'an NDJSON catalog has one object a line: check that the source is a text export, not a binary file or a device',
          }, { reason: 'row_too_large' });
        }
        if (newline < 0) {
          if (!oversized && stop > start) {
            parts.push(chunk.subarray(start));
            partLength += stop - start;
          }
          break;
        }
        line++;
        let item: RecordItem | null = null;
        if (oversized) {
          oversized = false;
          skipped = 0;
        } else {
          const piece = chunk.subarray(start, newline);
          const bytes = parts.length === 0 ? piece : Buffer.concat([...parts, piece]);
          parts = [];
          partLength = 0;
          item = ndjsonLine(bytes, line, source);
        }
        start = newline + 1;
        if (newline === cr) {
          if (start === chunk.length) crClosedChunk = true;
          else if (chunk[start] === 0x0a) start++;
        }
        if (item !== null) items.push(item);
      }
      if (items.length > 0) yield items;
    }
  } catch (error) {
    // The input failed part-way: the line being read, if it holds anything, is cut off.
    const failure = readFailure(error, source, { line: line + 1 });
    const pending = !oversized && partLength > 0 && !isBlank(Buffer.concat(parts).toString('utf8'));
    if (pending && !isAbort(failure)) yield [{ location: { source, line: line + 1 }, error: `the line is cut off: reading stopped inside it (${failureReason(error).why})` }];
    throw failure;
  }
  if (!oversized && partLength > 0) {
    const bytes = Buffer.concat(parts);
    const item = ndjsonLine(bytes, line + 1, source);
    if (item !== null && 'error' in item && endsInsideJson(bytes)) {
      const location = { source, line: line + 1 };
      yield [{ location, error: 'the line is cut off: the file ends inside its JSON' }];
      throw notReadToEnd(location, 'the file ends inside the JSON of this line, which has no line break: the file is cut short', {
        hint: 'export the file again, or wait until it is written whole',
      });
    }
    if (item !== null) yield [item];
  }
}
