import { randomUUID } from 'node:crypto';

/** The JSON number grammar (RFC 8259). */
const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

// While stringifyJson runs, each JsonNumber writes a placeholder that is then replaced by its text. The placeholder
// holds a random value made at start-up and never shown, so no string of a catalog can be mistaken for one.
const MARK = `jsonnumber-${randomUUID()}-`;
const MARKED = new RegExp(`"${MARK}(\\d+)"`, 'g');
let marking: string[] | undefined;

/**
 * A JSON number kept as the text it was written with, where a JS number would change it: `9007199254740993` (a JS
 * number holds 9007199254740992), `1e400` (Infinity, which JSON.stringify writes as null), `-0`, `1.0`, `1E2`. The
 * readers give one only for such a number (a plain `12.5` stays a number), and {@link stringifyJson} writes its text
 * back as it was. A text field (a SKU, an id) read from one takes its text.
 */
export class JsonNumber {
  /** The number as written in the source, e.g. `1.0`. */
  readonly text: string;

  constructor(text: string) {
    if (!NUMBER_TEXT.test(text)) throw new TypeError(`not a JSON number: ${JSON.stringify(text.slice(0, 40))}`);
    this.text = text;
  }

  /** Inside stringifyJson, the placeholder of the text; elsewhere the text as a JSON string (exact, though quoted). */
  toJSON(): string {
    if (marking === undefined) return this.text;
    marking.push(this.text);
    return `${MARK}${marking.length - 1}`;
  }

  toString(): string {
    return this.text;
  }
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * True when the number written as `text.slice(start, end)` (valid JSON) comes back as the same text from a JS number:
 * `String(Number(text)) === text`. The common forms (an integer of up to 15 digits, a decimal of up to 15 significant
 * digits with no trailing zero) are told from the characters alone, without making a string.
 */
export function isExactNumberText(text: string, start = 0, end = text.length): boolean {
  let i = start;
  if (text.charCodeAt(i) === 0x2d) i++;
  const intStart = i;
  while (i < end && isDigit(text.charCodeAt(i))) i++;
  const intLength = i - intStart;
  const zero = intLength === 1 && text.charCodeAt(intStart) === 0x30;
  if (intLength > 0 && intLength <= 15 && (zero || text.charCodeAt(intStart) !== 0x30)) {
    // `-0` is written `0`.
    if (i === end) return !(zero && intStart > start);
    if (text.charCodeAt(i) === 0x2e) {
      const fractionStart = ++i;
      while (i < end && isDigit(text.charCodeAt(i))) i++;
      if (i === end && end > fractionStart) {
        if (text.charCodeAt(end - 1) === 0x30) return false;
        let significant = intLength + (end - fractionStart);
        if (zero) {
          let leading = fractionStart;
          while (text.charCodeAt(leading) === 0x30) leading++;
          // Below 1e-6 JS writes an exponent.
          if (leading - fractionStart > 5) return sameText(text.slice(start, end));
          significant = end - leading;
        }
        // Up to 15 significant digits, a decimal is the shortest that gives its double, which is what JS writes.
        if (significant <= 15) return true;
      }
    }
  }
  return sameText(text.slice(start, end));
}

function sameText(text: string): boolean {
  return String(Number(text)) === text;
}

/** The value of a JSON number's text: a JS number when it gives the same text back, else a {@link JsonNumber}. */
export function numberFromText(text: string): number | JsonNumber {
  return isExactNumberText(text) ? Number(text) : new JsonNumber(text);
}

/** The texts of one stringifyJson call; one array for all calls but a nested one (a toJSON that calls it). */
const shared: string[] = [];

/**
 * JSON.stringify, with each {@link JsonNumber} written as its text. A value without one costs one JSON.stringify, as
 * before; in one with them, their placeholders are then replaced by their texts.
 */
export function stringifyJson(value: unknown, space?: number): string {
  const outer = marking;
  const texts = outer === undefined ? shared : [];
  // Left filled when a JSON.stringify threw (a BigInt, a cycle).
  texts.length = 0;
  marking = texts;
  let json: string;
  try {
    json = JSON.stringify(value, null, space);
  } finally {
    marking = outer;
  }
  if (texts.length === 0) return json;
  return json.replace(MARKED, (_, index: string) => texts[Number(index)]!);
}
