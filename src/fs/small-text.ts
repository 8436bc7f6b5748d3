import { FifoError, openToRead } from './open-to-read.js';

/** A file read whole that is larger than its limit: refused before more than the limit is held. */
export class TooLargeError extends RangeError {
  constructor(readonly limit: number) {
    super(`it is larger than ${limit / 1024 / 1024} MiB, far larger than such a file ever is`);
    this.name = 'TooLargeError';
  }
}

/**
 * A small file read whole as UTF-8 (a config or mapping file): at most `limit` bytes are read, so a huge file, a
 * device such as /dev/zero costs no more memory than that; more is a {@link TooLargeError}. A FIFO is a
 * {@link FifoError}, found without waiting on it. Other errors are the file system's (ENOENT, EISDIR...).
 */
export async function readSmallText(path: string, limit: number): Promise<string> {
  const { handle, fifo } = await openToRead(path);
  try {
    if (fifo) throw new FifoError();
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit) throw new TooLargeError(limit);
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
}
