import { pipeline, type Readable } from 'node:stream';
import { namedSetting, SourceError, UsageError } from '../errors.js';
import { csvRecords } from './formats/csv.js';
import { normalizeDelimiter, sniffDelimiter } from './formats/delimiter.js';
import { formatFromContentType, formatFromName, sniffFormat } from './formats/detect.js';
import { MAX_RECORD_BYTES, SNIFF_BYTES } from './formats/limits.js';
import { isHtmlPage } from './formats/markup.js';
import { peek, type Peeked } from './formats/peek.js';
import { Utf16Decoder, utf16Of } from './formats/utf16.js';
import { INVALID_UTF16, INVALID_UTF8 } from './formats/utf8-watch.js';
import { decompressed } from './sources/decompress.js';
import { openSource } from './sources/open-source.js';
import { readFailure } from './sources/read-failure.js';
import type { ByteSource, OpenedSource } from './sources/types.js';
import { FORMATS, isRecordError, type CatalogOptions, type Format, type ReadProgress, type RecordItem } from './types.js';

export { isRecordError, type RecordError, type RecordItem } from './types.js';


/** An opened catalog source: its records in input order, and how far through its bytes reading has got. */
export interface RecordStream {
  /** The source as locations name it: the path or URL as given, or `stdin`. */
  name: string;
  format: Format;
  records: AsyncIterable<RecordItem>;
  progress(): ReadProgress;
  /** Releases the source (its bytes, and what it holds) when its records are given up unread. */
  close(): void;
}

async function sniff(peeked: Peeked, name: string): Promise<{ format: Format; peeked: Peeked }> {
  let sniffed = sniffFormat(peeked.head, peeked.ended);
  if (sniffed === 'more') {
    // A first line that starts with `{` and is longer than the head: look as far as an NDJSON line may go.
    peeked = await peek(peeked.stream, MAX_RECORD_BYTES + 1);
    sniffed = sniffFormat(peeked.head, peeked.ended);
    if (sniffed === 'more') sniffed = 'json';
  }
  if (sniffed === 'binary') {
    throw new UsageError(`cannot tell the format of ${name}: it holds binary data (a spreadsheet file? export it as CSV)`, {
      hint: (name) => `name the format with ${name('format')} csv|tsv|json|ndjson`,
    });
  }
  return { format: sniffed, peeked };
}

/** The catalog options, and for CSV and TSV a listener told each header row read. */
export interface ReadOptions extends CatalogOptions {
  onHeader?: (columns: readonly string[]) => void;
}

interface Part {
  format: Format;
  records: AsyncIterable<RecordItem>;
}

/** The format's reader; the JSON and NDJSON ones (stream-json among them) are loaded only for such a source. */
async function recordsOf(format: Format, stream: Readable, head: Buffer, source: string, options: ReadOptions, delimiter: string | undefined): Promise<AsyncIterable<RecordItem>> {
  switch (format) {
    case 'csv':
    case 'tsv': {
      const onHeader = options.onHeader;
      return csvRecords(stream, { source, delimiter: delimiter ?? (format === 'tsv' ? '\t' : sniffDelimiter(head)), ...(onHeader === undefined ? {} : { onHeader }) });
    }
    case 'json': {
      const { jsonRecords } = await import('./formats/json.js');
      return jsonRecords(stream, { source, ...(options.jsonPath === undefined ? {} : { jsonPath: options.jsonPath }) });
    }
    case 'ndjson': {
      const { ndjsonRecords } = await import('./formats/ndjson.js');
      return ndjsonRecords(stream, { source });
    }
  }
}

function noop(): void {}

/**
 * The first bytes of a part, decompressed; UTF-16 text (with a byte order mark or without) is decoded to UTF-8 here,
 * as it streams, so that every reader reads UTF-8.
 */
async function peekText(part: ByteSource): Promise<{ peeked: Peeked; utf16: boolean }> {
  const peeked = await peek(await decompressed(part), SNIFF_BYTES);
  const utf16 = utf16Of(peeked.head);
  if (utf16 === undefined) return { peeked, utf16: false };
  return { peeked: await peek(pipeline(peeked.stream, new Utf16Decoder(utf16), noop), SNIFF_BYTES), utf16: true };
}

/**
 * The records of a UTF-16 part, their "not valid UTF-8" told as what it is there: the decoder writes what is not
 * UTF-16 text as a byte that is not UTF-8, and "save the file as UTF-8; is it Latin-1?" would send its owner the
 * wrong way.
 */
async function* asUtf16(records: AsyncIterable<RecordItem>): AsyncGenerator<RecordItem> {
  for await (const item of records) {
    yield isRecordError(item) && item.error.includes(INVALID_UTF8) ? { ...item, error: item.error.replace(INVALID_UTF8, INVALID_UTF16) } : item;
  }
}

function htmlPage(part: ByteSource): SourceError {
  // A header's text is the server's: only its printable ASCII is shown.
  const said = part.contentType === undefined ? '' : ` (Content-Type: ${part.contentType.slice(0, 100).replace(/[^\x20-\x7e]/g, '?')})`;
  return new SourceError({ source: part.name }, `is an HTML page${said}, not a catalog`, {
    hint: 'a server may answer a login or error page with 200: check the URL, and the credentials or source headers it needs',
  });
}

/** One part of a source, decompressed, its format told (option > extension > Content-Type > content), ready to read. */
async function readPart(part: ByteSource, options: ReadOptions, delimiter: string | undefined): Promise<Part> {
  try {
    const text = await peekText(part);
    let peeked = text.peeked;
    if (isHtmlPage(peeked.head)) throw htmlPage(part);
    let format = options.format ?? formatFromName(part.path) ?? formatFromContentType(part.contentType);
    if (format === undefined) ({ format, peeked } = await sniff(peeked, part.name));
    const records = await recordsOf(format, peeked.stream, peeked.head, part.name, options, delimiter);
    return { format, records: text.utf16 ? asUtf16(records) : records };
  } catch (error) {
    part.stream.destroy();
    throw readFailure(error, part.name);
  }
}

async function* allParts(first: Part, opened: OpenedSource, next: () => Promise<ByteSource | undefined>, options: ReadOptions, delimiter: string | undefined): AsyncGenerator<RecordItem> {
  try {
    yield* first.records;
    for (let part = await next(); part !== undefined; part = await next()) {
      const read = await readPart(part, options, delimiter);
      if (read.format !== first.format) {
        throw new SourceError({ source: part.name }, `is ${read.format}, but the catalog's first object is ${first.format}`);
      }
      yield* read.records;
    }
  } finally {
    opened.close?.();
  }
}

/**
 * Opens a catalog source (a path, `-`, an http(s) URL, `s3://bucket/key` or `s3://bucket/prefix/`) and tells its
 * format. The source is opened now: a missing file, a 404 URL or an unreadable S3 object throws SourceError naming
 * it, and content whose format cannot be told throws UsageError. The records are read lazily, streaming, in input
 * order; a record that cannot be read is yielded as a RecordError and reading goes on where the format allows.
 */
export async function openRecords(source: string, options: ReadOptions = {}): Promise<RecordStream> {
  if (options.format !== undefined && !FORMATS.includes(options.format)) {
    const setting = { key: 'format', value: String(options.format) };
    throw new UsageError((name) => `${namedSetting(setting, name)} is not one of ${FORMATS.join(', ')}`, { setting });
  }
  const delimiter = options.delimiter === undefined ? undefined : normalizeDelimiter(options.delimiter);
  options.signal?.throwIfAborted();
  const opened = await openSource(source, options);
  let first: Part;
  try {
    first = await readPart(opened.first, options, delimiter);
  } catch (error) {
    opened.close?.();
    throw error;
  }
  const meter = opened.meter;
  const next = opened.next;
  return {
    name: next === undefined ? opened.first.name : source,
    format: first.format,
    records: next === undefined ? first.records : allParts(first, opened, next, options, delimiter),
    progress: () => (meter.totalBytes === undefined ? { bytesRead: meter.bytesRead } : { bytesRead: meter.bytesRead, totalBytes: meter.totalBytes }),
    close: () => {
      opened.first.stream.destroy();
      opened.close?.();
    },
  };
}
