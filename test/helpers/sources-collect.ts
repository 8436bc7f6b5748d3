import { Readable } from 'node:stream';
import { expect } from 'vitest';
import { isRecordError, type RecordItem } from '../../src/catalog/read-records.js';
import { SourceError } from '../../src/errors.js';

/** Every item of an async iterable (records, drafts, outcomes), in order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A byte stream of the text, cut into chunks of `chunkSize` bytes (to cross every boundary when small). */
export function bytes(content: string | Buffer, chunkSize = 64 * 1024): Readable {
  const buffer = typeof content === 'string' ? Buffer.from(content) : content;
  const chunks: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += chunkSize) chunks.push(buffer.subarray(i, i + chunkSize));
  return Readable.from(chunks, { objectMode: false });
}

/** Items in a compact form for assertions: `[line or record, fields]` or `[line or record, 'error: ...']`. */
export function brief(items: readonly RecordItem[]): [number | undefined, unknown][] {
  return items.map((item) => [item.location.line ?? item.location.record, isRecordError(item) ? `error: ${item.error}` : item.fields]);
}

/** Every item of a record stream, in order, and the error that ended it (undefined when it ended normally). */
export async function collectUntilError(records: AsyncIterable<RecordItem>): Promise<{ items: RecordItem[]; error: Error | undefined }> {
  const items: RecordItem[] = [];
  try {
    for await (const item of records) items.push(item);
  } catch (error) {
    return { items, error: error as Error };
  }
  return { items, error: undefined };
}

/** The bytes of a stream read until it ends or fails, counted, and the error that ended it (undefined when it ended). */
export async function drainUntilError(stream: AsyncIterable<Buffer>): Promise<{ read: number; error: Error | undefined }> {
  let read = 0;
  try {
    for await (const chunk of stream) read += chunk.length;
  } catch (error) {
    return { read, error: error as Error };
  }
  return { read, error: undefined };
}

/** A record stream read until it ends or stops, in the {@link brief} form; a stop must be a `SourceError` (its message kept). */
export async function stopped(records: AsyncIterable<RecordItem>): Promise<{ items: ReturnType<typeof brief>; error: string | undefined }> {
  const { items, error } = await collectUntilError(records);
  if (error !== undefined) expect(error).toBeInstanceOf(SourceError);
  return { items: brief(items), error: error?.message };
}
