import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Text is gathered in memory and handed to the OS in chunks of about this many characters. */
const CHUNK = 64 * 1024;

/**
 * A file being written under a temporary name (`<path>.tmp-<pid>`), renamed into place by `commit` once complete,
 * so a reader never sees half of it: the old file (or none) until the new one is whole.
 *
 * Writes are gathered into ~64 KiB chunks, one OS write in flight at a time. A failed write does not reject the
 * promise `write` returned (a caller that ignores it must not crash the process with an unhandled rejection):
 * the error is thrown by the next `write` and by `commit`.
 */
export class AtomicFile {
  readonly #handle: FileHandle;
  #pending = '';
  #inflight: Promise<void> | undefined;
  #error: Error | undefined;
  #done = false;

  private constructor(
    /** Where the file ends up. */
    readonly path: string,
    /** Where it is written meanwhile. */
    readonly tempPath: string,
    handle: FileHandle,
  ) {
    this.#handle = handle;
  }

  /** Create the folder when needed and open the temporary file. */
  static async open(path: string): Promise<AtomicFile> {
    await mkdir(dirname(path), { recursive: true });
    const tempPath = `${path}.tmp-${process.pid}`;
    return new AtomicFile(path, tempPath, await open(tempPath, 'w'));
  }

  /**
   * Append text. Returns a promise only when a chunk went to the OS; awaiting it is the backpressure (it never
   * rejects). A per-row caller mostly gets `undefined` and pays no promise.
   */
  write(text: string): Promise<void> | undefined {
    if (this.#error) throw this.#error;
    if (this.#done) throw new Error(`${this.path} is already finished`);
    this.#pending += text;
    return this.#pending.length < CHUNK ? undefined : this.#flush();
  }

  /**
   * Overwrite text already written, at a byte offset from the start (a header whose counts are known only at the
   * end). Writes what is pending first; the next `write` still appends at the end. Do not call it while a
   * `write`'s promise is outstanding.
   */
  async writeAt(position: number, text: string): Promise<void> {
    if (this.#done) throw new Error(`${this.path} is already finished`);
    await this.#flush();
    if (this.#error) throw this.#error;
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < bytes.length) {
      const { bytesWritten } = await this.#handle.write(bytes, offset, bytes.length - offset, position + offset);
      offset += bytesWritten;
    }
  }

  /** Write what is left, sync it to disk and rename the file into place. On failure the temporary file is removed. */
  async commit(): Promise<void> {
    if (this.#done) throw new Error(`${this.path} is already finished`);
    this.#done = true;
    try {
      await this.#flush();
      if (this.#error) throw this.#error;
      await this.#handle.sync();
      await this.#handle.close();
      await rename(this.tempPath, this.path);
    } catch (error) {
      await this.#discard();
      throw error;
    }
  }

  /** Give up: close and delete the temporary file; the target is left as it was. Safe to call more than once. */
  async abort(): Promise<void> {
    this.#done = true;
    this.#pending = '';
    await this.#discard();
  }

  async #flush(): Promise<void> {
    while (this.#inflight) await this.#inflight;
    if (this.#pending === '' || this.#error) return;
    const chunk = Buffer.from(this.#pending, 'utf8');
    this.#pending = '';
    this.#inflight = this.#writeAll(chunk).then(
      () => {
        this.#inflight = undefined;
      },
      (error: unknown) => {
        this.#error ??= error instanceof Error ? error : new Error(String(error));
        this.#inflight = undefined;
      },
    );
    await this.#inflight;
  }

  async #writeAll(chunk: Buffer): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      const { bytesWritten } = await this.#handle.write(chunk, offset, chunk.length - offset);
      offset += bytesWritten;
    }
  }

  async #discard(): Promise<void> {
    while (this.#inflight) await this.#inflight;
    await this.#handle.close().catch(() => undefined);
    await rm(this.tempPath, { force: true });
  }
}

/** Write a whole file atomically from text chunks (a string, or an iterable that is consumed as it is written). */
export async function writeFileAtomic(path: string, content: string | Iterable<string> | AsyncIterable<string>): Promise<void> {
  const file = await AtomicFile.open(path);
  try {
    if (typeof content === 'string') await file.write(content);
    else if (Symbol.iterator in content) {
      // A plain loop: a million small chunks should not cost a million awaits.
      for (const chunk of content) {
        const wait = file.write(chunk);
        if (wait) await wait;
      }
    } else for await (const chunk of content) await file.write(chunk);
  } catch (error) {
    await file.abort();
    throw error;
  }
  await file.commit();
}
