import { JsonNumber } from '../../json-number.js';

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
