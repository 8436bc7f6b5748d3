import type { FieldIssue } from '../../contract/issues.js';
import { JsonNumber } from '../../json-number.js';
import { isJsonObject } from '../formats/json-values.js';

/** What a raw value says about a field: nothing (absent), a value, or why it cannot be used. */
export type Coerced<T> = { value?: T; issue?: string };

/** What a JSON value is, for a message: `a list`, `a number`, `an object`, `a string`... */
export function kindOf(raw: unknown): string {
  if (Array.isArray(raw)) return 'a list';
  if (raw instanceof JsonNumber) return 'a number';
  if (typeof raw === 'object') return 'an object';
  return `a ${typeof raw}`;
}

/** A text cell or JSON value: trimmed; empty and null are absent; numbers become text, as written in the source. */
export function toText(raw: unknown): Coerced<string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'string') {
    const value = raw.trim();
    return value === '' ? {} : { value };
  }
  if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'bigint') return { value: String(raw) };
  if (raw instanceof JsonNumber) return { value: raw.text };
  return { issue: `must be text, not ${kindOf(raw)}` };
}

/** Non-empty trimmed parts of a cell holding a list. */
export function splitList(cell: string, separator: string): string[] {
  const parts: string[] = [];
  for (const part of cell.split(separator)) {
    const value = part.trim();
    if (value !== '') parts.push(value);
  }
  return parts;
}

/**
 * Appends the items of a list value (one cell split on the separator, or a JSON array) to `into`; items that are
 * not text become issues at their index.
 */
export function appendList(raw: unknown, separator: string, into: string[], issues: FieldIssue[], path: string): void {
  if (raw === undefined || raw === null) return;
  if (typeof raw === 'string') {
    into.push(...splitList(raw, separator));
    return;
  }
  if (!Array.isArray(raw)) {
    issues.push({ path, message: `must be a list of URLs or text separated by ${JSON.stringify(separator)}, not ${kindOf(raw)}` });
    return;
  }
  raw.forEach((item: unknown, index) => {
    const text = toText(item);
    if (text.issue !== undefined) issues.push({ path: `${path}[${index}]`, message: text.issue });
    else if (text.value !== undefined) into.push(text.value);
  });
}

/** A value inside overrides: text is trimmed (empty is absent); JSON values are kept as they are. */
export function toOverrideValue(raw: unknown): unknown {
  if (typeof raw === 'string') {
    const value = raw.trim();
    return value === '' ? undefined : value;
  }
  return raw ?? undefined;
}

/** `fields[column]`, or for JSON records a dotted path through nested objects (`meta.barcode`). */
export function lookup(fields: Record<string, unknown>, column: string): unknown {
  if (Object.hasOwn(fields, column)) return fields[column];
  if (!column.includes('.')) return undefined;
  const place = nestedPlace(fields, column);
  return place === undefined ? undefined : place.holder[place.key];
}

/**
 * Why the dotted path `column` leads nowhere though the record gives a value on its way (`images.uri` where `images`
 * is a list or text): the path up to that value and what it is; undefined when the path is absent or reaches its end.
 */
export function blockedPath(fields: Record<string, unknown>, column: string): { path: string; kind: string } | undefined {
  let holder = fields;
  let start = 0;
  for (let dot = column.indexOf('.'); dot >= 0; dot = column.indexOf('.', start)) {
    const part = column.slice(start, dot);
    const next = Object.hasOwn(holder, part) ? holder[part] : undefined;
    if (next === undefined || next === null) return undefined;
    if (!isJsonObject(next)) return { path: column.slice(0, dot), kind: kindOf(next) };
    holder = next;
    start = dot + 1;
  }
  return undefined;
}

/** Where a value is held: the object and its own key. */
export interface Place {
  holder: Record<string, unknown>;
  key: string;
}

/** Where the dotted path `column` ends inside nested objects (`meta.barcode`: key `barcode` of `meta`), if it does. */
export function nestedPlace(fields: Record<string, unknown>, column: string): Place | undefined {
  let holder = fields;
  let start = 0;
  // Walked with indexOf, not split: CSV reads its dotted columns (`overrides.condition`) this way in every row.
  for (let dot = column.indexOf('.'); dot >= 0; dot = column.indexOf('.', start)) {
    const part = column.slice(start, dot);
    const next = Object.hasOwn(holder, part) ? holder[part] : undefined;
    if (!isJsonObject(next)) return undefined;
    holder = next;
    start = dot + 1;
  }
  const key = column.slice(start);
  return Object.hasOwn(holder, key) ? { holder, key } : undefined;
}
