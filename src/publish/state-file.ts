import { open } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';

const HEADER = '{"listings_state":1}';

/**
 * The `--changed-only` state: SKU -> content hash of the last request the service accepted for it.
 *
 * Format (NDJSON, so neither side ever holds the file as one string, even at a million SKUs): a first line
 * `{"listings_state":1}`, then one line per SKU, a JSON array `["<sku>","<content hash>"]`. Written atomically
 * (temporary file then rename), so a crash leaves the previous state whole.
 *
 * A missing (or empty) file is an empty state; anything else that is not such a file is a ConfigError, never
 * silently an empty state, which would republish the whole catalog.
 */
export async function loadState(path: string): Promise<Map<string, string>> {
  const state = new Map<string, string>();
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return state;
    throw unreadable(path, error);
  }
  let lineNumber = 0;
  const take = (line: string): void => {
    lineNumber++;
    if (lineNumber === 1) {
      if (line.trim() !== HEADER) throw notState(path, 'it does not start with {"listings_state":1}');
      return;
    }
    if (line === '') return;
    const entry = parseEntry(line);
    if (!entry) throw notState(path, `line ${lineNumber} is not ["sku","hash"]`);
    state.set(entry[0], entry[1]);
  };
  try {
    // Splitting chunks by hand: several times faster than readline at a million lines.
    let carry = '';
    for await (const chunk of handle.createReadStream({ encoding: 'utf8' })) {
      const text = carry + (chunk as string);
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        take(text.slice(start, text.charCodeAt(end - 1) === 13 ? end - 1 : end));
        start = end + 1;
      }
      carry = text.slice(start);
    }
    if (carry !== '') take(carry);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw unreadable(path, error);
  }
  return state;
}

/** Write the whole state atomically, streamed one line per SKU. */
export async function saveState(path: string, state: ReadonlyMap<string, string>): Promise<void> {
  await writeFileAtomic(path, lines(state));
}

function* lines(state: ReadonlyMap<string, string>): Generator<string> {
  yield `${HEADER}\n`;
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
