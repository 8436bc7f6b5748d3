import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';

/** Bytes a server must send in each window while the reader waits for them. */
export const MIN_BYTES_PER_WINDOW = 1024;

function noop(): void {}

/**
 * The body, failed once a whole window (`windowMs`) passes in which the server sent fewer than
 * MIN_BYTES_PER_WINDOW bytes while the reader had taken all there was: a server trickling a byte every few seconds
 * is never idle long enough for the idle timeout, and would hold the run for ever. A reader that is behind (the
 * service is slow) leaves bytes waiting, and is never taken for a slow server.
 */
export function failSlowBody(body: Readable, windowMs: number): Readable {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
      received += chunk.length;
      callback(null, chunk);
    },
  });
  const out = pipeline(body, counter, noop);
  const timer = setInterval(() => {
    const slow = received < MIN_BYTES_PER_WINDOW && out.readableLength === 0 && body.readableLength === 0;
    received = 0;
    if (slow) out.destroy(new Error(`the server sent less than ${MIN_BYTES_PER_WINDOW} bytes in ${windowMs / 1000} s`));
  }, windowMs);
  timer.unref();
  out.once('close', () => clearInterval(timer));
  return out;
}
