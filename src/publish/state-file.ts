import { open } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { runFilePath } from './journal.js';
import type { Shard } from './shard.js';
import { parseTarget, sameTarget, type RunTarget } from './run-target.js';

const HEADER_START = '{"listings_state":1';

/** What `--changed-only` learns from a state file. */
export interface StateRead {
  /** SKU -> content hash of what the target last accepted; empty when the file is missing or of another target. */
  state: Map<string, string>;
  /** Set when the file holds the state of another target (null: it names none): it was ignored, not applied. */
  foreignTarget?: RunTarget | null;
}

/** `.listings/state-<source hash>-<target hash>.ndjson`, beside the journal of the same source and target. */
export function defaultStatePath(source: string, cwd: string, target: RunTarget, shard?: Shard): string {
  return runFilePath('state', source, cwd, target, shard);
}

/**
 * The `--changed-only` state: SKU -> content hash of the last request the service accepted for it.
 *
 * Format (NDJSON, so neither side ever holds the file as one string, even at a million SKUs): a first line
 * `{"listings_state":1,"target":{...}}` naming the target it belongs to, then one line per SKU, a JSON array
 * `["<sku>","<content hash>"]`. Written atomically (temporary file then rename), so a crash leaves the previous
 * state whole.
 *
 * A missing (or empty) file is an empty state; so is the state of another target (the read says so, for a
 * notice): what the sandbox accepted says nothing of production. Anything else that is not such a file is a
 * ConfigError, never silently an empty state, which would republish the whole catalog.
 */
export async function loadState(path: string, target: RunTarget): Promise<StateRead> {
  const read: StateRead = { state: new Map<string, string>() };
  const state = read.state;
  let handle;
  try {
    handle = await open(path, 'r');
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
      if (header === undefined) throw notState(path, 'it does not start with {"listings_state":1,...}');
      if (header !== null && sameTarget(header, target)) return true;
      read.foreignTarget = header;
      return false;
    }
    if (line === '') return true;
    const entry = parseEntry(line);
    if (!entry) throw notState(path, `line ${lineNumber} is not ["sku","hash"]`);
    state.set(entry[0], entry[1]);
    return true;
  };
  try {
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

/** The header's target; null for a state that names none (written before states were bound to a target). */
function parseHeader(line: string): RunTarget | null | undefined {
  if (!line.startsWith(HEADER_START)) return undefined;
  try {
    const value = JSON.parse(line) as { listings_state?: unknown; target?: unknown };
    if (value.listings_state !== 1) return undefined;
    return parseTarget(value.target) ?? null;
  } catch {
    return undefined;
  }
}

/** Write the whole state atomically, streamed one line per SKU, under a header naming its target. */
export async function saveState(path: string, state: ReadonlyMap<string, string>, target: RunTarget): Promise<void> {
  await writeFileAtomic(path, lines(state, target));
}

function* lines(state: ReadonlyMap<string, string>, target: RunTarget): Generator<string> {
  yield `${JSON.stringify({ listings_state: 1, target })}\n`;
  for (const [sku, hash] of state) {
    yield plain(sku) && plain(hash) ? `["${sku}","${hash}"]\n` : `${JSON.stringify([sku, hash])}\n`;
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

function parseEntry(line: string): [string, string] | undefined {
  // Fast path for what `lines` writes for plain strings: without a backslash no quote can hide inside a string.
  if (line.startsWith('["') && line.endsWith('"]') && !line.includes('\\')) {
    const middle = line.indexOf('","');
    if (middle !== -1 && line.indexOf('"', middle + 3) === line.length - 2 && line.indexOf('"', 2) === middle) {
      return [line.slice(2, middle), line.slice(middle + 3, -2)];
    }
  }
  try {
    const value: unknown = JSON.parse(line);
    return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string'
      ? [value[0], value[1]]
      : undefined;
  } catch {
    return undefined;
  }
}

function unreadable(path: string, error: unknown): ConfigError {
  return new ConfigError(`cannot read the state file ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

function notState(path: string, why: string): ConfigError {
  return new ConfigError(`${path} is not a listings state file: ${why}`, {
    hint: 'pass the file an earlier --changed-only run wrote, or a new path to start from an empty state',
  });
}
