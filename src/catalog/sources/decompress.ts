import { pipeline, Readable } from 'node:stream';
import type * as Zlib from 'node:zlib';
import { SourceError } from '../../errors.js';
import { peek } from '../formats/peek.js';
import type { ByteSource } from './types.js';
import { gunzipped } from './gunzip.js';
import { heldOutput } from './held-output.js';

function noop(): void {}

/** node:zlib, loaded only for compressed content: a plain catalog does without it. */
function zlib(): Promise<typeof Zlib> {
  return import('node:zlib');
}

/** A decompressor's output, its failure delivered after every byte decompressed before it (see heldOutput). */
function dataBeforeFailure(inner: Readable): Readable {
  return Readable.from(heldOutput(inner), { objectMode: false });
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
    stream = Readable.from(gunzipped(stream, await zlib()), { objectMode: false });
  }
  return stream;
}
