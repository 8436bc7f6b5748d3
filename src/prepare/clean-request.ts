import { isSafeIdentifier } from '../contract/identifier.js';
import { isFlatMarketplace, isWrappedMarketplace } from '../contract/marketplace.js';

/*
 * Hand-written checks for the preparer's hot path. Each answers "certainly clean": the contract's schema accepts the
 * body AND its output is the body itself (same values, same key order), so the schema's parse can be skipped. Any
 * doubt answers false and the caller parses with the schema as before, which also writes the messages; so these
 * checks may reject more than the schema does, never accept more (test/unit/prepare/clean-request.test.ts compares them
 * with requestSchemaFor over a table of bodies).
 */

/** The schema's `text`: a string with something besides whitespace, here also with nothing for `trim()` to remove. */
export function isCleanText(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0) return false;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  // Printable ASCII at both ends is not whitespace; anything else asks trim(), which knows Unicode's spaces.
  if (first > 0x20 && first < 0x7f && last > 0x20 && last < 0x7f) return true;
  return value.trim() === value;
}

/** The schema's `identifier`: clean text without control characters. */
function isCleanIdentifier(value: unknown): value is string {
  return isCleanText(value) && isSafeIdentifier(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function isCleanTextList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!isCleanText(value[i])) return false;
  return true;
}

/**
 * A loose object whose shown fields (`first`, an identifier, then optionally `second`, text) are clean and come
 * first, as the schema's output orders them, and whose other values pass through unchanged (not undefined, not
 * `__proto__`).
 */
function isCleanLoose(value: unknown, first: string, second: string | undefined, needed: boolean): boolean {
  if (!isPlainObject(value)) return false;
  let position = 0;
  let found = 0;
  for (const key in value) {
    const item = value[key];
    if (key === first || key === second) {
      // A shown field after another key would be moved to the front by the schema.
      if (position !== found || (key === second && found === 0) || !(key === first ? isCleanIdentifier(item) : isCleanText(item))) return false;
      found++;
    } else if (item === undefined || key === '__proto__') {
      return false;
    }
    position++;
  }
  return !needed || found === (second === undefined ? 1 : 2);
}

/** A key's position in the flat schema's shape (the order its output has); 0 for a key it does not have. */
function flatRank(key: string): number {
  switch (key) {
    case 'images_source':
      return 1;
    case 'sku':
      return 2;
    case 'marketplace':
      return 3;
    case 'merchant_location_key':
      return 4;
    case 'fulfillment_policy_id':
      return 5;
    case 'payment_policy_id':
      return 6;
    case 'return_policy_id':
      return 7;
    case 'overrides':
      return 8;
    default:
      return 0;
  }
}

/**
 * True when the flat schema (with or without saved defaults) certainly accepts `body` and would output it unchanged.
 * `knownMarketplace`, when given, is a value already seen to match the flat form (it spares the regex on every row).
 */
export function isCleanFlatRequest(body: unknown, savedDefaults: boolean, knownMarketplace?: string): boolean {
  if (!isPlainObject(body)) return false;
  let last = 0;
  let required = savedDefaults ? 2 : 6;
  for (const key in body) {
    const rank = flatRank(key);
    if (rank <= last) return false;
    last = rank;
    const value = body[key];
    switch (rank) {
      case 1:
        if (!isCleanTextList(value)) return false;
        break;
      case 3:
        if (typeof value !== 'string' || (value !== knownMarketplace && !isFlatMarketplace(value))) return false;
        required--;
        break;
      case 8:
        if (!isCleanLoose(value, 'condition', undefined, false)) return false;
        break;
      default:
        if (!isCleanIdentifier(value)) return false;
        if (rank === 2 || !savedDefaults) required--;
    }
  }
  return required === 0;
}

/** True when the wrapped schema certainly accepts `body` and would output it unchanged (`knownMarketplace` as above). */
export function isCleanWrappedRequest(body: unknown, knownMarketplace?: string): boolean {
  if (!isPlainObject(body)) return false;
  let position = 0;
  for (const key in body) {
    const value = body[key];
    if (position === 0 && key === 'marketplace') {
      if (typeof value !== 'string' || (value !== knownMarketplace && !isWrappedMarketplace(value))) return false;
    } else if (position === 1 && key === 'payload') {
      if (!isCleanLoose(value, 'sku', 'title', true)) return false;
    } else {
      return false;
    }
    position++;
  }
  return position === 2;
}
