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

/** The scan as one number (depth * 2, plus 1 for an inexact number): no object per line on the hot path. */
function scanPacked(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inexact = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) i = stringEnd(text, i);
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > deepest) deepest = depth;
    } else if (code === 0x7d || code === 0x5d) depth--;
    else if (startsNumber(code)) {
      const end = numberEnd(text, i);
      if (inexact === 0 && !isExactNumberText(text, i, end)) inexact = 1;
      i = end - 1;
    }
  }
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
      // An own property, as JSON.parse makes it; plain assignment would set the prototype.
      if (key === '__proto__') Object.defineProperty(top, key, { value, enumerable: true, writable: true, configurable: true });
      else top[key] = value;
    }
  }
}

/** Valid JSON text built into a value whose numbers are exact: a number JS would change is a JsonNumber. */
function parseKeepingNumbers(text: string): unknown {
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
  return builder.root;
}

/**
 * JSON.parse for JSON from outside: throws its SyntaxError for text that is not JSON, and a {@link JsonDepthError}
 * for JSON nested deeper than {@link MAX_JSON_DEPTH}; a number whose text JS would change (see JsonNumber) is kept
 * as a JsonNumber. JSON with plain numbers costs JSON.parse and one look at each character.
 */
export function parseJsonText(text: string): unknown {
  // Scanned first: text a million levels deep is refused without being built.
  const scan = scanPacked(text);
  if (scan >> 1 > MAX_JSON_DEPTH) throw new JsonDepthError(scan >> 1);
  const value: unknown = JSON.parse(text);
  return (scan & 1) === 0 ? value : parseKeepingNumbers(text);
}
