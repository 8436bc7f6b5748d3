import { ListingsError, SourceError, type ListingsErrorOptions, type Location } from '../../errors.js';

/** The `code` of the error of bytes that are not gzip data after the end of the gzip data (src/catalog/sources/gunzip.ts). */
export const GZIP_TRAILING_DATA = 'GZIP_TRAILING_DATA';

export function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** Where in a source reading stopped: the line (text formats) or record (JSON) that was not read whole. */
export type ReadPosition = Omit<Location, 'source'>;

/**
 * Why reading stopped before the end of a source: a quoted value never closed, a row over the size limit (its
 * values unquoted), the input failing part-way (cut short, a reset connection, damaged compressed data), or content
 * the format cannot read past.
 */
export type StopReason = 'unclosed_quote' | 'row_too_large' | 'read_failed' | 'unreadable';

/** Where the part of a source that was not read starts, and why it was not. */
export interface ReadStop {
  reason: StopReason;
  /**
   * The offset in the reader's input (decompressed and decoded bytes, a byte order mark included) where the rows not
   * read start: at the row that stopped the reading. Undefined when not known.
   */
  offset?: number | undefined;
}

/** Why and from where each source error made by notReadToEnd left its source unread. */
const stops = new WeakMap<SourceError, ReadStop>();

/**
 * The error of a source that could not be read to its end (it is cut short, or breaks so that nothing after the
 * place can be read): located at that place, so the rows before it are known to be all that was read. `stop` (see
 * readStopOf) says why and from where the rest was not read; `unreadable` when not given.
 */
export function notReadToEnd(location: Location, why: string, options?: ListingsErrorOptions, stop: ReadStop = { reason: 'unreadable' }): SourceError {
  const error = new SourceError(location, `not read to its end: ${why}`, options);
  stops.set(error, stop);
  return error;
}

/** Why and from where `error` left its source unread, when it is the error of a source that stopped. */
export function readStopOf(error: unknown): ReadStop | undefined {
  return error instanceof SourceError ? stops.get(error) : undefined;
}

/** Why reading failed, in a few words (the message of a typed error), and what to do about it. */
export function failureReason(error: unknown): { why: string; hint?: string } {
  if (error instanceof ListingsError) return { why: error.message };
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'Z_BUF_ERROR') {
    return { why: `the compressed data ends early (${message}): the file is cut short`, hint: 'download or export the file again; it was cut short while it was written or copied' };
  }
  if (typeof code === 'string' && code.startsWith('Z_')) return { why: `the compressed data is damaged (${message})` };
  if (code === GZIP_TRAILING_DATA) return { why: message, hint: 'every row of the gzip data was read; what follows it is no part of it: export or download the file again' };
  return { why: `reading failed: ${message}` };
}

/**
 * The error to throw when reading a source fails (a reset connection, damaged gzip data, a file that went away):
 * typed errors and aborts pass as they are, anything else becomes a SourceError naming the source and, once
 * reading is under way (`at`), the place where it stopped.
 */
export function readFailure(error: unknown, source: string, at?: ReadPosition): Error {
  if (error instanceof ListingsError || isAbort(error)) return error as Error;
  const { why, hint } = failureReason(error);
  if (at === undefined) return new SourceError({ source }, why, { cause: error, hint });
  return notReadToEnd({ source, ...at }, why, { cause: error, hint }, { reason: 'read_failed' });
}
