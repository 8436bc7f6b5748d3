import type { Readable } from 'node:stream';

/** Decompressed chunks held ahead of the reader at most (zlib gives 16 KiB chunks). */
const AHEAD = 4;

/**
 * A decompressor's output, with its failure (data cut short or damaged) delivered after every byte decompressed
 * before it. A zlib stream that fails destroys itself, and a reader of it then gets the error at once, without the
 * output still buffered (as much as a reader that is behind has not taken yet): the rows in it would be lost.
 * Here its output is taken as it comes and held (a few chunks, then the decompressor is paused, and on a failure
 * what it still buffers is taken too) until the reader asks.
 */
export async function* heldOutput(inner: Readable): AsyncGenerator<Buffer> {
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
