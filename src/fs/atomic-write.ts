import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigError } from '../errors.js';
import { inspectOutput, makeDirs, NOFOLLOW, openLinkedPipe, openOnceReadOrRefuse, setFileMode, type OutputRules, type OutputTarget } from './output-target.js';
import { Utf8Chunks } from './utf8-chunks.js';


/** The longest file name (in bytes) the usual file systems allow. */
export const NAME_MAX = 255;

/**
 * `<path>.tmp-<tag>`; for a name too long to take the suffix (a file name is at most 255 bytes), `.tmp-<tag>` in
 * its folder, so the rename into place stays in that folder.
 */
export function temporaryName(path: string, tag: string): string {
  const suffix = `.tmp-${tag}`;
  return Buffer.byteLength(basename(path)) + suffix.length <= NAME_MAX ? `${path}${suffix}` : join(dirname(path), suffix);
}

/** A new temporary file, created (never opened through a link, never one already there): O_CREAT|O_EXCL|O_NOFOLLOW. */
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
/** A pipe or a device, written as it is: never created, truncated or followed. */
const IN_PLACE = constants.O_WRONLY | NOFOLLOW;

/**
 * A file being written under a temporary name (`<path>.tmp-<12 random hex>`, or `.tmp-<hex>` beside a name too long to take it; created exclusively, so no name can be
 * planted in advance and no link is followed), renamed into place by `commit` once complete, so a reader never sees
 * half of it: the old file (or none) until the new one is whole. A symbolic link at `path` is followed (see
 * inspectOutput): the file it points to is replaced, the link stays.
 *
 * A named pipe or a character device at `path` (`/dev/null`) is written in place and never replaced: `tempPath` is
 * then `path` itself, `commit` closes it and `abort` cannot take back what was written. A directory, or anything
 * `rules` does not allow, is a ConfigError at `open`.
 *
 * Text is encoded a few rows at a time as it is written, into 128 KiB chunks (Utf8Chunks), one OS write in flight at a time. A failed write does not reject the
 * promise `write` returned (a caller that ignores it must not crash the process with an unhandled rejection):
 * the error is thrown by the next `write` and by `commit`.
 */
export class AtomicFile {
  readonly #handle: FileHandle;
  #chunks = new Utf8Chunks();
  #inflight: Promise<void> | undefined;
  #error: Error | undefined;
  #done = false;

  private constructor(
    /** Where the file ends up. */
    readonly path: string,
    /** Where it is written meanwhile. */
    readonly tempPath: string,
    handle: FileHandle,
    /** Where `commit` renames the file: the real file behind a link; undefined for a pipe or a device. */
    private readonly renameTo: string | undefined,
  ) {
    this.#handle = handle;
  }

  /** Create the folders when needed and open the temporary file (or the pipe or device, as it is). */
  static async open(path: string, rules: OutputRules = {}): Promise<AtomicFile> {
    const target = await inspectOutput(path, rules);
    if ('refused' in target) throw new ConfigError(`cannot write ${path}: ${target.refused}`);
    if (target.kind === 'stream') {
      const handle = target.linked === true ? await openLinkedPipe(path, constants.O_WRONLY, 'file') : await openInPlace(path, target);
      return new AtomicFile(path, target.path, handle, undefined);
    }
    await makeDirs(dirname(target.path), rules);
    for (let attempt = 1; ; attempt++) {
      const tempPath = temporaryName(target.path, randomBytes(6).toString('hex'));
      let handle: FileHandle;
      try {
        handle = await open(tempPath, CREATE, rules.private === true ? 0o600 : 0o666);
      } catch (error) {
        // Taken (by chance, or planted): another random name.
        if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 8) continue;
        throw error;
      }
      try {
        await setFileMode(handle, rules);
      } catch (error) {
        await handle.close().catch(() => undefined);
        await rm(tempPath, { force: true });
        throw error;
      }
      return new AtomicFile(path, tempPath, handle, target.path);
    }
  }

  /**
   * Append text. Returns a promise only when a chunk went to the OS; awaiting it is the backpressure (it never
   * rejects). A per-row caller mostly gets `undefined` and pays no promise.
   */
  write(text: string): Promise<void> | undefined {
    if (this.#error) throw this.#error;
    if (this.#done) throw new Error(`${this.path} is already finished`);
    this.#chunks.add(text);
    return this.#chunks.hasFull ? this.#flush(false) : undefined;
  }

  /** Hand what is pending to the OS now, not when a chunk is full; never rejects (see `failed`). */
  flush(): Promise<void> {
    return this.#done ? Promise.resolve() : this.#flush(true);
  }

  /** The first write that failed, if one did: it is also thrown by the next `write` and by `commit`. */
  get failed(): Error | undefined {
    return this.#error;
  }

  /**
   * Overwrite text already written, at a byte offset from the start (a header whose counts are known only at the
   * end). Writes what is pending first; the next `write` still appends at the end. Do not call it while a
   * `write`'s promise is outstanding.
   */
  async writeAt(position: number, text: string): Promise<void> {
    if (this.#done) throw new Error(`${this.path} is already finished`);
    await this.#flush(true);
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
      await this.#flush(true);
      if (this.#error) throw this.#error;
      if (this.renameTo === undefined) {
        await this.#handle.close();
        return;
      }
      await this.#handle.sync();
      await this.#handle.close();
      await rename(this.tempPath, this.renameTo);
    } catch (error) {
      await this.#discard();
      throw error;
    }
  }

  /** Give up: close and delete the temporary file; the target is left as it was. Safe to call more than once. */
  async abort(): Promise<void> {
    this.#done = true;
    this.#chunks = new Utf8Chunks();
    await this.#discard();
  }

  /** Hand the full chunks to the OS, and with `all` what is pending too, after the write in flight. */
  async #flush(all: boolean): Promise<void> {
    while (this.#inflight) await this.#inflight;
    if (this.#chunks.empty || this.#error) return;
    const chunks = this.#chunks.take(all);
    if (chunks.length === 0) return;
    this.#inflight = this.#writeAll(chunks).then(
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

  async #writeAll(chunks: readonly Buffer[]): Promise<void> {
    for (const chunk of chunks) {
      let offset = 0;
      while (offset < chunk.length) {
        const { bytesWritten } = await this.#handle.write(chunk, offset, chunk.length - offset);
        offset += bytesWritten;
      }
    }
  }

  async #discard(): Promise<void> {
    while (this.#inflight) await this.#inflight;
    await this.#handle.close().catch(() => undefined);
    if (this.renameTo !== undefined) await rm(this.tempPath, { force: true });
  }
}

/** Open a pipe or a device to write in place, checking it still is one once open (not swapped for a file since). */
async function openInPlace(path: string, target: OutputTarget): Promise<FileHandle> {
  const handle = await openOnceReadOrRefuse(target, () => open(target.path, IN_PLACE), `cannot write ${path}`);
  const found = await handle.stat();
  if (found.isFIFO() || found.isCharacterDevice()) return handle;
  await handle.close();
  throw new ConfigError(`cannot write ${path}: it changed while it was being opened`);
}

/** Write a whole file atomically from text chunks (a string, or an iterable that is consumed as it is written). */
export async function writeFileAtomic(path: string, content: string | Iterable<string> | AsyncIterable<string>, rules: OutputRules = {}): Promise<void> {
  const file = await AtomicFile.open(path, rules);
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
