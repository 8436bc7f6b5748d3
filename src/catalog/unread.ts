import { open } from 'node:fs/promises';
import { readStopOf, type StopReason } from './sources/read-failure.js';
import { SourceError } from '../errors.js';
import { redactSourceName } from '../secret-url.js';
import { schemeOf } from './sources/source-kind.js';
import { countLineEnds, isLineEnd } from './formats/line-ends.js';
import { utf16Of } from './formats/utf16.js';
import type { ReadProgress } from './types.js';
import { count } from '../number-text.js';
import { printable } from '../printable.js';

/**
 * What a source that could not be read to its end left unread, as the summary and every report give it. `bytes`:
 * the bytes of the source from the row that stopped the reading to its end (for a local file), or those never
 * fetched (a download of known size); null when that is not known (a stream, a compressed file fetched whole). `rows_estimate`: the rows in them
 * besides the one that stopped the reading, counted as lines in a local file, else estimated from the size of the
 * rows read; null when it cannot be told. `sources_not_read`, when several sources were given and some came after the
 * one that stopped: that one, then those never opened (none of their rows was read, nor counted).
 */
export interface Unread {
  reason: UnreadReason;
  bytes: number | null;
  rows_estimate: number | null;
  sources_not_read?: string[];
}

/** Why a source was not read to its end: where it stopped, or (`source_error`) it could not be read at all. */
export type UnreadReason = StopReason | 'source_error';

const CHUNK = 1 << 20;

/** Lines from `offset` to the end of the file (CRLF, LF and a bare CR each end one; a last line may lack its end). */
async function linesFrom(path: string, offset: number): Promise<{ bytes: number; lines: number } | undefined> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const head = Buffer.alloc(Math.min(size, 1024));
    await handle.read(head, 0, head.length, 0);
    // Decompressed or decoded, the reader's offsets are not the file's.
    if ((head[0] === 0x1f && head[1] === 0x8b) || utf16Of(head) !== undefined || offset > size) return undefined;
    const buffer = Buffer.allocUnsafe(CHUNK);
    let lines = 0;
    let last = 0x0a;
    for (let at = offset; at < size; ) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, at);
      if (bytesRead === 0) break;
      lines += countLineEnds(buffer.subarray(0, bytesRead), last);
      last = buffer[bytesRead - 1]!;
      at += bytesRead;
    }
    if (size > offset && !isLineEnd(last)) lines++;
    return { bytes: size - offset, lines };
  } finally {
    await handle.close();
  }
}

/**
 * What `error` (the error that stopped reading a source) left unread; undefined for an error that is not a source
 * that stopped, unless sources named after it were never opened (`notOpened`): they are named, with the one that
 * stopped. A local file is measured from the row that stopped the reading (one pass over the rest, at disk speed);
 * another source of known size from the bytes fetched; `rowsRead` rows were read.
 */
export async function unreadOf(error: unknown, progress: ReadProgress, rowsRead: number, notOpened: readonly string[] = []): Promise<Unread | undefined> {
  const stop = readStopOf(error);
  const stopped = error instanceof SourceError && notOpened.length > 0 ? [error.location.source, ...notOpened.map(redactSourceName)] : undefined;
  const sources = stopped === undefined ? {} : { sources_not_read: stopped };
  if (stop === undefined) return stopped === undefined ? undefined : { reason: 'source_error', bytes: null, rows_estimate: null, ...sources };
  const { reason, offset } = stop;
  const source = (error as SourceError).location.source;
  if (offset !== undefined && source !== '-' && schemeOf(source) === undefined) {
    const rest = await linesFrom(source, offset).catch(() => undefined);
    if (rest !== undefined) return { reason, bytes: rest.bytes, rows_estimate: Math.max(0, rest.lines - 1), ...sources };
  }
  const total = progress.totalBytes;
  // All fetched (read ahead, or compressed) but not read: how much of it is rows cannot be told.
  if (total === undefined || progress.bytesRead >= total) return { reason, bytes: null, rows_estimate: null, ...sources };
  const bytes = total - progress.bytesRead;
  const perRow = rowsRead > 0 ? progress.bytesRead / rowsRead : 0;
  return { reason, bytes, rows_estimate: bytes > 0 && perRow > 0 ? Math.round(bytes / perRow) : null, ...sources };
}

/**
 * The rows left unread, when they can be told: not when sources after the one that stopped were never opened
 * (their rows were never counted).
 */
export function rowsNotRead(unread: Unread | undefined): number | undefined {
  if (unread === undefined || (unread.sources_not_read?.length ?? 0) > 1) return undefined;
  return unread.rows_estimate ?? undefined;
}

const REASONS: Record<UnreadReason, string> = {
  unclosed_quote: 'a quoted value was never closed',
  row_too_large: 'a row is larger than 1 MiB',
  read_failed: 'the source failed part-way',
  unreadable: 'the source cannot be read past a place',
  source_error: 'the source could not be read',
};

/**
 * `about 9 rows (250 bytes) not read: a quoted value was never closed`; `no row after the one that stopped the reading
 * (31 bytes from it to the end): ...` when that row was the last; for a stream, or a compressed file read
 * ahead, `the rest of the source (its size unknown) not read: ...`. Sources never opened are named after it
 * (`; not opened: c.csv`), and the source that stopped before them.
 */
export function unreadText(unread: Unread): string {
  const [stopped, ...notOpened] = unread.sources_not_read ?? [];
  if (stopped === undefined) return sourceUnreadText(unread);
  const named = printable(stopped, { lines: false });
  const first = unread.reason === 'source_error' ? `${named} not read: ${REASONS.source_error}` : `${sourceUnreadText(unread)} (${named})`;
  return notOpened.length === 0 ? first : `${first}; not opened: ${notOpened.map((name) => printable(name, { lines: false })).join(', ')}`;
}

function sourceUnreadText(unread: Unread): string {
  const why = REASONS[unread.reason];
  if (unread.bytes === null) return `the rest of the source (its size unknown) not read: ${why}`;
  const bytes = `${count(unread.bytes)} ${unread.bytes === 1 ? 'byte' : 'bytes'}`;
  if (unread.rows_estimate === null) return `${bytes} of the source not read: ${why}`;
  // The bytes start at the row that stopped the reading, which is reported: with no row after it, none was lost.
  if (unread.rows_estimate === 0) return `no row after the one that stopped the reading (${bytes} from it to the end): ${why}`;
  const rows = `${count(unread.rows_estimate)} ${unread.rows_estimate === 1 ? 'row' : 'rows'}`;
  return `about ${rows} (${bytes}) not read: ${why}`;
}
