import { hasReplacement } from './utf8-watch.js';

/** What a JSON value is, for messages: `a string`, `an array`, `null`. */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return String(value);
  return `a ${typeof value}`;
}

/** True for a JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when any string (key or value) in a parsed JSON value holds U+FFFD. */
export function jsonHasReplacement(value: unknown): boolean {
  if (typeof value === 'string') return hasReplacement(value);
  if (Array.isArray(value)) return value.some(jsonHasReplacement);
  if (isJsonObject(value)) {
    for (const key of Object.keys(value)) if (hasReplacement(key) || jsonHasReplacement(value[key])) return true;
  }
  return false;
}
