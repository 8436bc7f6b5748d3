import { JsonNumber } from '../../json-number.js';
import { hasReplacement } from './utf8-watch.js';

/** What a JSON value is, for messages: `a string`, `an array`, `null`. */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof JsonNumber) return 'a number';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return String(value);
  return `a ${typeof value}`;
}

/** True for a JSON object (not an array, not null, not a number kept as its text). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

/**
 * True when any string (key or value) in a parsed JSON value holds U+FFFD. Walked with a stack of its own, not by
 * recursion: a record may nest arrays many thousands deep within the size limit, deeper than the call stack goes.
 */
export function jsonHasReplacement(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (hasReplacement(next)) return true;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (isJsonObject(next)) {
      for (const key of Object.keys(next)) {
        if (hasReplacement(key)) return true;
        pending.push(next[key]);
      }
    }
  }
  return false;
}
