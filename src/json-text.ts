import { isExactNumberText, numberFromText } from './json-number.js';

/**
 * The deepest nesting of objects and arrays read from outside (catalog records, stream messages, the service's
 * answers): a record object is level 1, `{"a":{"b":[1]}}` is 3 deep. Deeper JSON is refused where it enters, since
 * the code after it (JSON.stringify among others) recurses and would run out of stack.
 */
export const MAX_JSON_DEPTH = 64;

/** Why JSON nested too deep is refused, after what holds it (`record 3`, `the line`). */
export const TOO_DEEP = `nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;

/** JSON nested deeper than {@link MAX_JSON_DEPTH}; its message is {@link TOO_DEEP} and the depth found. */
export class JsonDepthError extends RangeError {
  constructor(readonly depth: number) {
    super(`${TOO_DEEP} (${depth})`);
    this.name = 'JsonDepthError';
  }
}

/** An object of JSON from outside that holds one key twice: JSON.parse keeps the last value and drops the other. */
export class JsonDuplicateKeyError extends RangeError {
  constructor(readonly key: string) {
    super(`holds the key ${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}...` : key)} twice in one object, so one of its values would be lost`);
    this.name = 'JsonDuplicateKeyError';
  }
}

/** What {@link scanJsonText} found. */
export interface JsonTextScan {
  /** The deepest nesting of objects and arrays (0 for a bare scalar). */
  depth: number;
  /** False when some number's text is not what JS writes for its value (`1.0`, `1e400`, `9007199254740993`). */
  exactNumbers: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index of the quote that closes the string opened at `open`. */
function stringEnd(text: string, open: number): number {
  let close = open;
  for (;;) {
    close = text.indexOf('"', close + 1);
    if (close < 0) return text.length;
    if (text.charCodeAt(close - 1) !== BACKSLASH) return close;
    // Escaped only by an odd number of backslashes.
    let before = close - 2;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    if ((close - 1 - before) % 2 === 0) return close;
  }
}

function isNumberChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x2d || code === 0x2b || code === 0x65 || code === 0x45;
}

function numberEnd(text: string, start: number): number {
  let end = start + 1;
  while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
  return end;
}

function startsNumber(code: number): boolean {
  return code === 0x2d || (code >= 0x30 && code <= 0x39);
}

/** The keys the last {@link scanPacked} saw: strings followed by `:` (kept here, so the scan allocates nothing). */
let scannedKeys = 0;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The scan as one number (depth * 2, plus 1 for an inexact number): no object per line on the hot path. */
function scanPacked(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inexact = 0;
  let keys = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = stringEnd(text, i);
      let next = i + 1;
      while (isSpace(text.charCodeAt(next))) next++;
      if (text.charCodeAt(next) === 0x3a) keys++;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > deepest) deepest = depth;
    } else if (code === 0x7d || code === 0x5d) depth--;
    else if (startsNumber(code)) {
      const end = numberEnd(text, i);
      if (inexact === 0 && !isExactNumberText(text, i, end)) inexact = 1;
      i = end - 1;
    }
  }
  scannedKeys = keys;
  return deepest * 2 + inexact;
}

/**
 * Depth and number texts of JSON text, in one pass over it, without recursion. Text that is not valid JSON gives a
 * result that means nothing, and no error.
 */
export function scanJsonText(text: string): JsonTextScan {
  const packed = scanPacked(text);
  return { depth: packed >> 1, exactNumbers: (packed & 1) === 0 };
}

type Container = Record<string, unknown> | unknown[];

/** Builds one JSON value from its parts in document order, with a stack of its own (no recursion). */
export class JsonValueBuilder {
  /** The value built so far: the outermost container, or a scalar. */
  root: unknown;
  /** The first key put twice into one object (the later value replaced the earlier), if any. */
  duplicate: string | undefined;
  readonly #stack: Container[] = [];
  #key: string | undefined;

  /** True when the next string is a key: the open container is an object waiting for one. */
  get wantsKey(): boolean {
    return this.#key === undefined && this.#stack.length > 0 && !Array.isArray(this.#stack[this.#stack.length - 1]);
  }

  key(key: string): void {
    this.#key = key;
  }

  open(container: Container): void {
    this.put(container);
    this.#stack.push(container);
  }

  close(): void {
    this.#stack.pop();
  }

  put(value: unknown): void {
    const top = this.#stack[this.#stack.length - 1];
    if (top === undefined) {
      this.root = value;
    } else if (Array.isArray(top)) {
      top.push(value);
    } else {
      const key = this.#key ?? '';
      this.#key = undefined;
      if (this.duplicate === undefined && Object.hasOwn(top, key)) this.duplicate = key;
      // An own property, as JSON.parse makes it; plain assignment would set the prototype.
      if (key === '__proto__') Object.defineProperty(top, key, { value, enumerable: true, writable: true, configurable: true });
      else top[key] = value;
    }
  }
}

/** {@link scanPacked}, scanned first so that text a million levels deep is refused without being built. */
function scanWithinDepth(text: string): number {
  const scan = scanPacked(text);
  if (scan >> 1 > MAX_JSON_DEPTH) throw new JsonDepthError(scan >> 1);
  return scan;
}

/** Valid JSON text built into a value whose numbers are exact: a number JS would change is a JsonNumber. */
function buildKeepingNumbers(text: string): JsonValueBuilder {
  const builder = new JsonValueBuilder();
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      const value = JSON.parse(text.slice(i, end + 1)) as string;
      if (builder.wantsKey) builder.key(value);
      else builder.put(value);
      i = end;
    } else if (code === 0x7b) builder.open({});
    else if (code === 0x5b) builder.open([]);
    else if (code === 0x7d || code === 0x5d) builder.close();
    else if (startsNumber(code)) {
      const end = numberEnd(text, i);
      builder.put(numberFromText(text.slice(i, end)));
      i = end - 1;
    } else if (code === 0x74) {
      builder.put(true);
      i += 3;
    } else if (code === 0x66) {
      builder.put(false);
      i += 4;
    } else if (code === 0x6e) {
      builder.put(null);
      i += 3;
    }
  }
  return builder;
}

/**
 * JSON.parse for JSON from outside: throws its SyntaxError for text that is not JSON, and a {@link JsonDepthError}
 * for JSON nested deeper than {@link MAX_JSON_DEPTH}; a number whose text JS would change (see JsonNumber) is kept
 * as a JsonNumber. JSON with plain numbers costs JSON.parse and one look at each character.
 */
export function parseJsonText(text: string): unknown {
  const scan = scanWithinDepth(text);
  const value: unknown = JSON.parse(text);
  return (scan & 1) === 0 ? value : buildKeepingNumbers(text).root;
}

/** The keys of every object in a value JSON.parse made (plain objects and arrays only), without recursion. */
function ownKeyCount(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null) continue;
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) if (typeof item[i] === 'object') stack.push(item[i]);
      continue;
    }
    for (const key in item) {
      count++;
      const inner = (item as Record<string, unknown>)[key];
      if (typeof inner === 'object') stack.push(inner);
    }
  }
  return count;
}

/**
 * {@link parseJsonText} for a catalog record (an NDJSON line, a stream message): also throws a
 * {@link JsonDuplicateKeyError} for an object that holds a key twice, whose first value JSON.parse would drop.
 */
export function parseJsonRecord(text: string): unknown {
  const scan = scanWithinDepth(text);
  const keys = scannedKeys;
  const value: unknown = JSON.parse(text);
  // The keys written against the keys kept: equal unless one was written twice (found by name on that rare path).
  if ((scan & 1) === 0 && ownKeyCount(value) === keys) return value;
  const built = buildKeepingNumbers(text);
  if (built.duplicate !== undefined) throw new JsonDuplicateKeyError(built.duplicate);
  return built.root;
}
