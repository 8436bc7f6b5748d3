import { openToRead } from '../fs/open-to-read.js';
import { ConfigError } from '../errors.js';
import { AtomicFile, writeFileAtomic } from '../fs/atomic-write.js';
import { runFilePath } from './journal.js';
import type { Shard } from './shard.js';
import { parseTarget, sameTarget, type RunTarget } from './run-target.js';
import { ListingState } from './listing-state.js';

const HEADER_START = '{"listings_state":';
/** The user's alone; read back at the next run, so never a pipe (a device such as /dev/null reads as empty). */
export const STATE_RULES = { private: true, pipe: false } as const;
/** The version written: 2 keys each line by (marketplace, SKU); 1 (SKU alone) is still read, as legacy entries. */
const VERSION = 2;

/** What `--changed-only` learns from a state file. */
export interface StateRead {
  /** (marketplace, SKU) -> content hash of what the target last accepted; empty when the file is missing or of another target. */
  state: ListingState;
  /** Set when the file holds the state of another target (null: it names none): it was ignored, not applied. */
  foreignTarget?: RunTarget | null;
}

/** `.listings/state-<source hash>-<target hash>.ndjson`, beside the journal of the same source and target. */
export function defaultStatePath(source: string, cwd: string, target: RunTarget, shard?: Shard): string {
  return runFilePath('state', source, cwd, target, shard);
}

/**
 * The `--changed-only` state: (marketplace, SKU) -> content hash of the last request the service accepted for it.
 *
 * Format (NDJSON, so neither side ever holds the file as one string, even at a million SKUs): a first line
 * `{"listings_state":2,"target":{...}}` naming the target it belongs to, then one line per listing, a JSON array
 * `["<marketplace>","<sku>","<content hash>"]`. Written atomically (temporary file then rename), so a crash leaves
 * the previous state whole. A version 1 file (older, keyed by SKU alone: `["<sku>","<content hash>"]`) is read into
 * the state's legacy entries (see ListingState), and the next save writes version 2.
 *
 * A missing (or empty) file is an empty state; so is the state of another target (the read says so, for a
 * notice): what the sandbox accepted says nothing of production. Anything else that is not such a file is a
 * ConfigError, never silently an empty state, which would republish the whole catalog.
 */
export async function loadState(path: string, target: RunTarget): Promise<StateRead> {
  const read: StateRead = { state: new ListingState() };
  const state = read.state;
  let version = VERSION;
  let handle;
  let fifo;
  try {
    ({ handle, fifo } = await openToRead(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return read;
    throw unreadable(path, error);
  }
  let lineNumber = 0;
  /** Takes one line; false when the rest of the file is not wanted (the state of another target). */
  const take = (line: string): boolean => {
    lineNumber++;
    if (lineNumber === 1) {
      const header = parseHeader(line);
      if (header === undefined) throw notState(path, `it does not start with {"listings_state":${VERSION},...}`);
      version = header.version;
      if (header.target !== null && sameTarget(header.target, target)) return true;
      read.foreignTarget = header.target;
      return false;
    }
    if (line === '') return true;
    if (version === 1) {
      const entry = parseEntry(line, 2);
      if (!entry) throw notState(path, `line ${lineNumber} is not ["sku","hash"]`);
      state.set('', entry[0]!, entry[1]!);
    } else {
      const entry = parseEntry(line, 3);
      if (!entry) throw notState(path, `line ${lineNumber} is not ["marketplace","sku","hash"]`);
      state.set(entry[0]!, entry[1]!, entry[2]!);
    }
    return true;
  };
  try {
    // A device (/dev/null) has no state to read back, and one such as /dev/zero would never end; nor has a FIFO,
    // which a plain open would have waited on for ever.
    if (fifo || (await handle.stat()).isCharacterDevice()) return read;
    // Splitting chunks by hand: several times faster than readline at a million lines.
    let carry = '';
    for await (const chunk of handle.createReadStream({ encoding: 'utf8' })) {
      const text = carry + (chunk as string);
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        if (!take(text.slice(start, text.charCodeAt(end - 1) === 13 ? end - 1 : end))) return read;
        start = end + 1;
      }
      carry = text.slice(start);
    }
    if (carry !== '') take(carry);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw unreadable(path, error);
  } finally {
    await handle.close().catch(() => undefined);
  }
  return read;
}

/** The header's version and target (null for a state that names none: written before states were bound to a target). */
function parseHeader(line: string): { version: 1 | 2; target: RunTarget | null } | undefined {
  if (!line.startsWith(HEADER_START)) return undefined;
  try {
    const value = JSON.parse(line) as { listings_state?: unknown; target?: unknown };
    if (value.listings_state !== 1 && value.listings_state !== 2) return undefined;
    return { version: value.listings_state, target: parseTarget(value.target) ?? null };
  } catch {
    return undefined;
  }
}

/** Write the whole state atomically, streamed one line per listing, under a header naming its target. */
export async function saveState(path: string, state: ListingState, target: RunTarget): Promise<void> {
  await writeFileAtomic(path, lines(state, target), STATE_RULES);
}

function* lines(state: ListingState, target: RunTarget): Generator<string> {
  yield `${JSON.stringify({ listings_state: VERSION, target })}\n`;
  for (const [marketplace, sku, hash] of state.entries()) yield entryLine(marketplace, sku, hash);
}

function entryLine(marketplace: string, sku: string, hash: string): string {
  return plain(marketplace) && plain(sku) && plain(hash) ? `["${marketplace}","${sku}","${hash}"]\n` : `${JSON.stringify([marketplace, sku, hash])}\n`;
}

/** While a run goes, the state's new lines reach the file at least this often: a full disk stops the run then. */
const FLUSH_AFTER_MS = 50;

/**
 * The state of a `--changed-only` run, written as the run goes: opened with the state as loaded (every entry), then
 * a line for each listing the service accepts (read back, a later line of a listing wins over an earlier one; the
 * next save writes each once), renamed into place by `commit`. A write that fails (a full disk) is told to
 * `onError` within 50 ms, so the run can stop sending; the previous state is then left whole.
 */
export class StateWriter {
  readonly #file: AtomicFile;
  readonly #state: ListingState;
  readonly #onError: (error: Error) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #told = false;

  private constructor(file: AtomicFile, state: ListingState, onError: (error: Error) => void) {
    this.#file = file;
    this.#state = state;
    this.#onError = onError;
  }

  /** Open the file and write the state as it is; a write that fails here is thrown (nothing is left of the file). */
  static async open(path: string, state: ListingState, target: RunTarget, onError: (error: Error) => void): Promise<StateWriter> {
    const file = await AtomicFile.open(path, STATE_RULES);
    try {
      for (const line of lines(state, target)) {
        const wait = file.write(line);
        if (wait) await wait;
      }
      await file.flush();
      if (file.failed) throw file.failed;
    } catch (error) {
      await file.abort();
      throw error;
    }
    const writer = new StateWriter(file, state, onError);
    state.onSet((marketplace, sku, hash) => writer.#record(entryLine(marketplace, sku, hash)));
    return writer;
  }

  #record(line: string): void {
    try {
      void this.#file.write(line)?.then(this.#check);
    } catch (error) {
      this.#tell(error);
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#file.flush().then(this.#check);
    }, FLUSH_AFTER_MS);
  }

  readonly #check = (): void => {
    if (this.#file.failed) this.#tell(this.#file.failed);
  };

  #tell(error: unknown): void {
    if (this.#told) return;
    this.#told = true;
    this.#state.onSet(undefined);
    this.#onError(error instanceof Error ? error : new Error(String(error)));
  }

  #stop(): void {
    this.#state.onSet(undefined);
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Write what is left and rename the file into place; rejects (the previous state kept) when a write failed. */
  async commit(): Promise<void> {
    this.#stop();
    await this.#file.commit();
  }

  /** Drop the file: the previous state is left as it was. */
  async abort(): Promise<void> {
    this.#stop();
    await this.#file.abort();
  }
}

/** True when JSON would write the string as it is: no quote, backslash or control character. */
function plain(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** A line of `count` strings (2 in version 1, 3 in version 2), or undefined. */
function parseEntry(line: string, count: 2 | 3): string[] | undefined {
  // Fast path for what `lines` writes for plain strings: without a backslash no quote can hide inside a string.
  if (line.startsWith('["') && line.endsWith('"]') && !line.includes('\\')) {
    const parts: string[] = [];
    let start = 2;
    for (let i = 1; i < count; i++) {
      const end = line.indexOf('","', start);
      if (end === -1 || line.indexOf('"', start) !== end) break;
      parts.push(line.slice(start, end));
      start = end + 3;
    }
    if (parts.length === count - 1 && line.indexOf('"', start) === line.length - 2) {
      parts.push(line.slice(start, -2));
      return parts;
    }
  }
  try {
    const value: unknown = JSON.parse(line);
    return Array.isArray(value) && value.length === count && value.every((item) => typeof item === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

function unreadable(path: string, error: unknown): ConfigError {
  return new ConfigError(`cannot read the state file ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

function notState(path: string, why: string): ConfigError {
  return new ConfigError(`${path} is not a listings state file: ${why}`, {
    hint: (name) => `pass the file an earlier ${name('changedOnly')} run wrote, or a new path to start from an empty state`,
  });
}
