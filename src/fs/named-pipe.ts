import { close, constants, createReadStream, fstat, open, read, type Stats } from 'node:fs';
import { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

/**
 * How long a named pipe is waited for, for the program at its other end: a plain open waits for ever, and a CI job
 * must not. Long enough for a writer started beside the command (`cmd > fifo &`), short enough to fail a forgotten one.
 */
export const PIPE_WAIT_MS = 10_000;

/** How often the other end is looked for while waiting. */
const POLL_MS = 50;

const openFd = promisify(open);
const statFd = promisify(fstat);
const readFd = promisify(read);
const closeFd = promisify(close);

/** A named pipe whose other end no program opened in time: the message is the reason, to follow `cannot … X: `. */
export class PipeWaitError extends Error {
  constructor(otherEnd: 'read' | 'write', waitMs: number) {
    super(`it is a named pipe that no program opened to ${otherEnd}${otherEnd === 'write' ? ' (or wrote anything to)' : ''} within ${Math.round(waitMs / 1000)} s`);
    this.name = 'PipeWaitError';
  }
}

/**
 * Calls `attempt` every {@link POLL_MS} until it gives a value, and throws `late()` once `waitMs` have gone by. The
 * descriptors are non-blocking, so no attempt holds a thread of the pool, and the wait ends when it must.
 */
async function within<T>(waitMs: number, attempt: () => Promise<T | undefined>, late: () => Error): Promise<T> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (performance.now() >= deadline) throw late();
    await sleep(POLL_MS);
  }
}

/**
 * An input read once as a stream, opened without waiting: a regular file as it is; a pipe (named, or a shell's
 * `<(…)` and `/dev/stdin`) once a program writes to it, within `waitMs` (else a {@link PipeWaitError}). Errors of
 * the open (ENOENT, EACCES...) are the file system's.
 */
export async function openStreamInput(path: string, waitMs = PIPE_WAIT_MS): Promise<Readable> {
  const fd = await openFd(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let stats: Stats;
  try {
    stats = await statFd(fd);
  } catch (error) {
    await closeFd(fd);
    throw error;
  }
  // A regular file never blocks, non-blocking or not; a device is read as the catalog reads one.
  if (!stats.isFIFO()) return createReadStream('', { fd });
  const first = Buffer.alloc(64 * 1024);
  // A read of a pipe no program holds open to write ends at once (0 bytes); one that a writer holds but has not
  // written to yet says EAGAIN: the writer is there, and the stream waits for its bytes as long as they take.
  const bytes = await within(
    waitMs,
    async () => {
      try {
        const { bytesRead } = await readFd(fd, first, 0, first.length, null);
        return bytesRead > 0 ? first.subarray(0, bytesRead) : undefined;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return Buffer.alloc(0);
        await closeFd(fd);
        throw error;
      }
    },
    () => {
      void closeFd(fd);
      return new PipeWaitError('write', waitMs);
    },
  );
  // A socket reads the pipe through the event loop (a file stream would read EAGAIN as an error).
  const stream = new Socket({ fd, readable: true, writable: false });
  if (bytes.length > 0) stream.unshift(bytes);
  return stream;
}

/**
 * A named pipe opened to write once a program holds it open to read, within `waitMs` (else a
 * {@link PipeWaitError}): a plain open would wait for ever. Written through the event loop; a reader that goes
 * away is an `EPIPE` error of the stream.
 */
export async function openPipeToWrite(path: string, waitMs = PIPE_WAIT_MS): Promise<Writable> {
  const fd = await openWhenRead(path, waitMs);
  if (!(await statFd(fd)).isFIFO()) {
    await closeFd(fd);
    throw new Error('it changed while it was being opened');
  }
  return new Socket({ fd, readable: false, writable: true });
}

/**
 * Waits, within `waitMs` (else a {@link PipeWaitError}), until a program holds the named pipe at `path` open to read,
 * then runs `open` (a plain open, which no longer waits) and returns what it gives. The descriptor that found the
 * reader is held open until then. For an output written through a file handle (a report, a journal): a plain open of
 * a pipe nobody reads waits for ever, in a thread of the pool, and not even SIGTERM ends the run.
 */
export async function openOnceRead<T>(path: string, open: () => Promise<T>, waitMs = PIPE_WAIT_MS): Promise<T> {
  const probe = await openWhenRead(path, waitMs);
  try {
    return await open();
  } finally {
    await closeFd(probe);
  }
}

/** A non-blocking descriptor to write the pipe at `path`, once a program holds it open to read. */
function openWhenRead(path: string, waitMs: number): Promise<number> {
  return within(
    waitMs,
    async () => {
      try {
        return await openFd(path, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch (error) {
        // ENXIO: no program has it open to read, yet.
        if ((error as NodeJS.ErrnoException).code === 'ENXIO') return undefined;
        throw error;
      }
    },
    () => new PipeWaitError('read', waitMs),
  );
}
