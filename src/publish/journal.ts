import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { WriteStream } from 'node:fs';
import { openOutput } from '../fs/output-target.js';
import { openToRead } from '../fs/open-to-read.js';
import { jsonString } from '../json-string.js';
import { Utf8Chunks } from '../fs/utf8-chunks.js';
import { redactSourceName, sourceIdentity } from '../secret-url.js';
import { parseTarget, sameTarget, targetId, type RunTarget } from './run-target.js';
import type { Shard } from './shard.js';

/** The first line of each run's part of a journal. */
export interface JournalHeader {
  /** The source as given (path, URL or `-`; several on lines of their own); written with its credentials masked. */
  source: string;
  /** ISO time the run started. */
  startedAt: string;
  /** Where the run publishes: rows of another target's runs are never taken as published. */
  target: RunTarget;
}

/** One finished row. Holds no secret by construction: no header, no body, no URL. */
export interface JournalEntry {
  /** 0-based position of the row in the input. */
  index: number;
  sku: string;
  /** The marketplace it went to: with the SKU, the listing's identity (absent in journals of older versions). */
  marketplace?: string;
  /** The content hash of the request body (see idempotency.ts); it covers the marketplace too. */
  hash: string;
  outcome: string;
  status?: number;
}

/** The longest journal line read back: far longer than any this tool writes (a header names every source). */
const MAX_JOURNAL_LINE_BYTES = 16 * 1024 * 1024;

/** Lines wait at most this long before they are handed to the OS. */
const FLUSH_AFTER_MS = 50;

/**
 * The resume journal: an append-only NDJSON file, one line per finished row, plus one header line per run
 * (`{"journal":1,"source":...,"startedAt":...,"target":{...}}`). Runs of the same source and target append to the
 * same file.
 *
 * Lines are encoded a few at a time (Utf8Chunks) and handed to the OS together every 50 ms, or as soon as 128 KiB are
 * pending: one write per thousand rows instead of one per event-loop turn (which cost ~2.5 s of CPU per 100k rows). A kill -9 loses at most the rows
 * finished in the last 50 ms, and nothing the OS already holds; `--resume` sends those again with the same
 * Idempotency-Key, so the service does not create them twice.
 */
export class JournalWriter {
  readonly #stream: WriteStream;
  readonly #chunks = new Utf8Chunks();
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#flush();
  };
  #error: Error | undefined;
  #closed = false;

  readonly #onError: ((error: Error) => void) | undefined;

  private constructor(stream: WriteStream, onError: ((error: Error) => void) | undefined) {
    this.#stream = stream;
    this.#onError = onError;
    stream.on('error', (error) => this.#failed(error));
  }

  #failed(error: Error): void {
    if (this.#error !== undefined) return;
    this.#error = error;
    this.#onError?.(error);
  }

  /**
   * Open (creating the folder and file when needed, the user's alone: 0700 and 0600) and write the run's header
   * line: appending to what earlier runs wrote, or with `fresh` starting the file over (truncated in place: a pipe or
   * a device is written to, never removed). A symbolic link is followed as inspectOutput says. `onError` hears of
   * the first write that fails (a full disk), at once.
   */
  static async open(path: string, header: JournalHeader, options: { fresh?: boolean; onError?: (error: Error) => void } = {}): Promise<JournalWriter> {
    const fresh = options.fresh === true;
    const handle = await openOutput(path, { role: 'journal', private: true, truncate: fresh, read: !fresh });
    // After a kill -9 the last line may be torn; start on a fresh line so it cannot swallow the header.
    const torn = options.fresh !== true && (await endsWithoutNewline(handle));
    const writer = new JournalWriter(handle.createWriteStream({ encoding: 'utf8' }), options.onError);
    writer.#append(`${torn ? '\n' : ''}${JSON.stringify({ journal: 1, source: shownSources(header.source), startedAt: header.startedAt, target: header.target })}\n`);
    return writer;
  }

  /** Note one finished row. Cheap; the line reaches the file within 50 ms. */
  record(entry: JournalEntry): void {
    if (this.#closed) throw new Error('journal is closed');
    // The text JSON.stringify gives for these keys in this order, without building an object per row.
    const marketplace = entry.marketplace === undefined ? '' : this.#marketplaceField(entry.marketplace);
    const index = Number.isInteger(entry.index) ? `${entry.index}` : JSON.stringify(entry.index);
    this.#append(`{"index":${index},"sku":${jsonString(entry.sku)}${marketplace},"hash":${jsonString(entry.hash)}${this.#endOf(entry)}`);
  }

  /** `,"outcome":"published","status":201}` and the line's end, made once for the rows of one outcome and status in a row. */
  #end: { outcome: string; status: number | undefined; text: string } = { outcome: '', status: undefined, text: '' };
  #endOf({ outcome, status }: JournalEntry): string {
    const end = this.#end;
    if (outcome !== end.outcome || status !== end.status || end.text === '') {
      this.#end = { outcome, status, text: `,"outcome":${JSON.stringify(outcome)}${status === undefined ? '' : `,"status":${JSON.stringify(status)}`}}\n` };
    }
    return this.#end.text;
  }

  /** `,"marketplace":"EBAY_US"`, made once for the rows of one marketplace in a row. */
  #marketplace: string | undefined;
  #marketplaceText = '';
  #marketplaceField(marketplace: string): string {
    if (marketplace !== this.#marketplace) {
      this.#marketplace = marketplace;
      this.#marketplaceText = `,"marketplace":${JSON.stringify(marketplace)}`;
    }
    return this.#marketplaceText;
  }

  /** Write what is pending and close the file; rejects with the first write error, if any. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#flush();
    await new Promise<void>((done) => {
      // The callback may hear of a failed last write before the 'error' event does.
      this.#stream.end((error?: Error | null) => {
        if (error) this.#failed(error);
        done();
      });
      this.#stream.once('error', () => done());
    });
    if (this.#error) throw this.#error;
  }

  #append(text: string): void {
    this.#chunks.add(text);
    // A full chunk goes at once; the rest within 50 ms.
    if (this.#chunks.hasFull) this.#write(false);
    if (this.#timer === undefined && !this.#chunks.empty) this.#timer = setTimeout(this.#onTimer, FLUSH_AFTER_MS);
  }

  #flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#write(true);
  }

  /** Hand the full chunks to the OS, and with `all` what is pending too. */
  #write(all: boolean): void {
    if (this.#chunks.empty || this.#error) return;
    for (const chunk of this.#chunks.take(all)) this.#stream.write(chunk);
  }
}

async function endsWithoutNewline(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/**
 * The key under which {@link readPublished} reports a row: SKU and content hash. The hash covers the whole request,
 * marketplace included, so the key is finer than the listing's identity (marketplace, SKU): the same SKU published
 * on one marketplace is never taken as published on another, and journals written before entries named their
 * marketplace resume just the same.
 */
export function publishedKey(sku: string, hash: string): string {
  return `${sku}\u0000${hash}`;
}

/** What `--resume` learns from a journal. */
export interface JournalRead {
  /** Keys ({@link publishedKey}) of the rows earlier runs against this target published. */
  published: Set<string>;
  /** False when there is no journal at the path (another working directory, say). */
  found: boolean;
  /** Runs in the file that were against another target (or recorded none): their rows were not taken. */
  foreignRuns: number;
  /** One of those other targets, for the notice. */
  foreignTarget: RunTarget | undefined;
}

/**
 * The rows published by earlier runs against `target`, as keys `${sku}\u0000${hash}` ({@link publishedKey}): a row
 * is skipped on resume only when its SKU and its request content are the same and it went to the same target. A
 * missing file is an empty set; a torn or unreadable line (a kill -9 mid-write) is ignored; the rows of a run
 * against another target (or of a journal that names none) are ignored and counted in `foreignRuns`.
 */
export async function readPublished(path: string, target: RunTarget): Promise<JournalRead> {
  const read: JournalRead = { published: new Set(), found: false, foreignRuns: 0, foreignTarget: undefined };
  let handle;
  let fifo;
  try {
    ({ handle, fifo } = await openToRead(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return read;
    throw error;
  }
  // A device (/dev/null) holds no rows to read back, and one such as /dev/zero would never end; nor does a FIFO (its
  // rows went to whoever reads it), which a plain open would have waited on for ever.
  if (fifo || (await handle.stat()).isCharacterDevice()) {
    await handle.close();
    return read;
  }
  read.found = true;
  // Read as the catalog's NDJSON is (loaded only by a resumed run): each line bounded, so a planted line of any
  // length costs no more memory than the limit; a torn or unreadable line is an error item, ignored.
  const { ndjsonRecords } = await import('../catalog/formats/ndjson.js');
  // Rows before any header (a journal cut at its start) belong to no known target.
  let ours = false;
  const { readStopOf } = await import('../catalog/sources/read-failure.js');
  try {
    for await (const batch of ndjsonRecords(handle.createReadStream(), { source: path, maxLineBytes: MAX_JOURNAL_LINE_BYTES }).batches()) {
      for (const item of batch) {
        if ('error' in item) continue;
        const line = item.fields;
        if ('journal' in line) {
          const runTarget = parseTarget(line.target);
          ours = runTarget !== undefined && sameTarget(runTarget, target);
          if (!ours) {
            read.foreignRuns++;
            read.foreignTarget ??= runTarget;
          }
          continue;
        }
        const { sku, hash, outcome } = line;
        if (ours && outcome === 'published' && typeof sku === 'string' && typeof hash === 'string') read.published.add(publishedKey(sku, hash));
      }
    }
  } catch (error) {
    // A last line cut inside its JSON (a kill -9 mid-write) is a torn line like any other: the rows before it stand.
    if (readStopOf(error)?.reason !== 'unreadable') throw error;
  }
  return read;
}

/** Sources joined by newlines, each as {@link redactSourceName} shows it. */
function shownSources(source: string): string {
  return source.split('\n').map(redactSourceName).join('\n');
}

/**
 * `<cwd>/.listings/journal-<12 hex of sha256(resolved source)>-<8 hex of the target>.ndjson`: one journal per
 * source and target, so `--resume` of the same file against the same service finds it from the same working
 * directory, and a try-out against the sandbox never feeds a run against production. A file path is resolved
 * against `cwd`; a URL (`http:`, `https:`, `s3:`) and `-` (stdin) are taken as written, less their credentials and
 * the values that change at each signing (see sourceIdentity), so that the same catalog at a re-signed URL (a new token or signature each night) resumes
 * the same journal. A `--shard K/N` run has its own (`...-shard-KofN.ndjson`), so the jobs of a matrix on one
 * machine do not share one.
 */
export function defaultJournalPath(source: string, cwd: string, target: RunTarget, shard?: Shard): string {
  return runFilePath('journal', source, cwd, target, shard);
}

/**
 * `.listings/<kind>-<source hash>-<target hash>.ndjson`, the default place of a run's journal or state; with a shard,
 * `.listings/<kind>-<source hash>-<target hash>-shard-<K>of<N>.ndjson`.
 */
export function runFilePath(kind: 'journal' | 'state', source: string, cwd: string, target: RunTarget, shard?: Shard): string {
  const identity = source.split('\n').map(sourceIdentity).join('\n');
  const resolved = source === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(source) ? identity : resolve(cwd, identity);
  const short = createHash('sha256').update(resolved).digest('hex').slice(0, 12);
  const part = shard === undefined ? '' : `-shard-${shard.index}of${shard.count}`;
  return join(cwd, '.listings', `${kind}-${short}-${targetId(target)}${part}.ndjson`);
}
