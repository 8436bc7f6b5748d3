import { Readable } from 'node:stream';

/** The first bytes of a stream, and a stream that still yields them. */
export interface Peeked {
  head: Buffer;
  /** True when the stream ended within `head` (it holds all the bytes there are). */
  ended: boolean;
  stream: Readable;
}

/** A stream of the bytes read before a failure, which then fails the same way. */
function failingAfter(head: Buffer, error: Error): Readable {
  return Readable.from(
    (function* () {
      yield head;
      throw error;
    })(),
    { objectMode: false },
  );
}

/**
 * Reads at least `size` bytes (fewer when the stream is shorter) without consuming them: they are put back with
 * `unshift`, or, when the stream has already ended, handed on in a new stream. A stream that fails after some bytes
 * (a cut gzip file shorter than `size`) is handed on as those bytes and then its error, so that the records in
 * them are read before the failure; one that fails before any byte rejects.
 */
export function peek(stream: Readable, size: number): Promise<Peeked> {
  return new Promise<Peeked>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const cleanup = (): void => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const finish = (ended: boolean): void => {
      cleanup();
      const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
      if (ended) {
        resolve({ head, ended, stream: Readable.from(length === 0 ? [] : [head], { objectMode: false }) });
        return;
      }
      if (length > 0) stream.unshift(head);
      resolve({ head, ended, stream });
    };
    function onReadable(): void {
      let chunk: Buffer | null;
      while (length < size && (chunk = stream.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        length += chunk.length;
      }
      if (length >= size) finish(false);
    }
    function onEnd(): void {
      finish(true);
    }
    function onError(error: Error): void {
      cleanup();
      // A stream that failed just after bytes it still holds (gzip data with other bytes after it, in a small file):
      // those bytes are handed on before its error.
      for (let chunk = stream.read() as Buffer | null; chunk !== null; chunk = stream.read() as Buffer | null) {
        chunks.push(chunk);
        length += chunk.length;
      }
      if (length === 0) {
        reject(error);
        return;
      }
      const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
      resolve({ head, ended: false, stream: failingAfter(head, error) });
    }
    if (stream.errored !== null) {
      onError(stream.errored);
      return;
    }
    if (stream.readableEnded) {
      finish(true);
      return;
    }
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}
