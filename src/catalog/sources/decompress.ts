import { pipeline, Readable } from 'node:stream';
import type * as Zlib from 'node:zlib';
import { SourceError } from '../../errors.js';
import { peek } from '../formats/peek.js';
import type { ByteSource } from './types.js';

function noop(): void {}

/** node:zlib, loaded only for compressed content: a plain catalog does without it. */
function zlib(): Promise<typeof Zlib> {
  return import('node:zlib');
}

/** Decompressed chunks held ahead of the reader at most (zlib gives 16 KiB chunks). */
const AHEAD = 4;

/**
 * A decompressor's output, with its failure (data cut short or damaged) delivered after every byte decompressed
 * before it. A zlib stream that fails destroys itself, and a reader of it then gets the error at once, without the
 * output still buffered (as much as a reader that is behind has not taken yet): the rows in it would be lost.
 * Here its output is taken as it comes and held (a few chunks, then the decompressor is paused, and on a failure
 * what it still buffers is taken too) until the reader asks.
 */
function dataBeforeFailure(inner: Readable): Readable {
  const chunks: Buffer[] = [];
  let failure: Error | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  inner.on('data', (chunk: Buffer) => {
    if (failure !== undefined) return;
    chunks.push(chunk);
    if (chunks.length >= AHEAD) inner.pause();
    signal();
  });
  inner.once('end', () => {
    ended = true;
    signal();
  });
  inner.once('error', (error) => {
    failure = error;
    // What it decompressed while paused is still in its buffer, which it drops once it is gone.
    for (let chunk = inner.read() as Buffer | null; chunk !== null; chunk = inner.read() as Buffer | null) chunks.push(chunk);
    signal();
  });
  async function* output(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const chunk = chunks.shift();
        if (chunk !== undefined) {
          if (chunks.length < AHEAD) inner.resume();
          yield chunk;
        } else if (failure !== undefined) throw failure;
        else if (ended) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      inner.destroy();
    }
  }
  return Readable.from(output(), { objectMode: false });
}

function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * The part's bytes decompressed. A Content-Encoding of deflate or br is decoded; gzip is recognised by its magic
 * bytes (1f 8b), whatever the name or Content-Encoding says, so a `.gz` file, a gzip Content-Encoding and a
 * `.csv.gz` served with Content-Encoding gzip all read as the plain catalog, and a mislabelled plain file still reads.
 */
export async function decompressed(part: ByteSource): Promise<Readable> {
  let stream = part.stream;
  const encoding = (part.contentEncoding ?? '').trim().toLowerCase();
  if (encoding === 'deflate') stream = dataBeforeFailure(pipeline(stream, (await zlib()).createInflate(), noop));
  else if (encoding === 'br') stream = dataBeforeFailure(pipeline(stream, (await zlib()).createBrotliDecompress(), noop));
  else if (!['', 'identity', 'gzip', 'x-gzip'].includes(encoding)) {
    throw new SourceError({ source: part.name }, `the content is encoded as ${JSON.stringify(encoding)}, which cannot be read`);
  }
  // At most twice: a .gz file sent with Content-Encoding gzip is gzip inside gzip.
  for (let round = 0; round < 2; round++) {
    const peeked = await peek(stream, 2);
    stream = peeked.stream;
    if (!isGzip(peeked.head)) break;
    stream = dataBeforeFailure(pipeline(stream, (await zlib()).createGunzip(), noop));
  }
  return stream;
}
