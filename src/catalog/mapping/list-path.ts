import type { FieldIssue } from '../../contract/issues.js';
import { isJsonObject } from '../formats/json-values.js';
import { blockedPath, kindOf, lookup } from './values.js';

/** A mapped name that reads one value from each item of a list of objects: `images[].url` (list `images`, item path `url`). */
export interface ListPath {
  list: string;
  item: string;
}

const EACH = '[].';

/** The list path a mapped name writes (`LIST[].PATH`, once), or undefined for a plain name or dotted path. */
export function listPathOf(column: string): ListPath | undefined {
  const at = column.indexOf(EACH);
  if (at <= 0 || column.indexOf(EACH, at + 1) >= 0) return undefined;
  const item = column.slice(at + EACH.length);
  return item === '' ? undefined : { list: column.slice(0, at), item };
}

/**
 * Appends the text at `path.item` of each object of the list at `path.list` (`images[].url`) to `into`. A list that is
 * absent (or null) is a field the record leaves out, as for a dotted path; anything else that gives no text is an
 * issue at its item (`images_source[1]`), so no image is left out in silence: an item that is not an object, an item
 * without the path, a value there that is not text.
 */
export function appendEachItem(fields: Record<string, unknown>, column: string, path: ListPath, into: string[], issues: FieldIssue[], field: string): void {
  const readFrom = `read from ${JSON.stringify(column)}`;
  const list = lookup(fields, path.list);
  if (list === undefined || list === null) {
    const blocked = path.list.includes('.') ? blockedPath(fields, path.list) : undefined;
    if (blocked !== undefined) issues.push({ path: field, message: `${readFrom}, but ${JSON.stringify(blocked.path)} is ${blocked.kind}, not an object holding ${JSON.stringify(path.list.slice(blocked.path.length + 1))}` });
    return;
  }
  if (!Array.isArray(list)) {
    issues.push({ path: field, message: `${readFrom}, but ${JSON.stringify(path.list)} is ${kindOf(list)}, not a list` });
    return;
  }
  const itemName = JSON.stringify(path.item);
  list.forEach((item: unknown, index) => {
    const at = `${field}[${index}]`;
    const where = `item ${index} of ${JSON.stringify(path.list)}`;
    if (!isJsonObject(item)) {
      issues.push({ path: at, message: `${readFrom}, but ${where} is ${kindOf(item)}, not an object holding ${itemName}` });
      return;
    }
    const value = lookup(item, path.item);
    if (value === undefined || value === null) {
      const blocked = path.item.includes('.') ? blockedPath(item, path.item) : undefined;
      const why = blocked === undefined ? `has no ${itemName}` : `holds ${kindOf(lookup(item, blocked.path))} at ${JSON.stringify(blocked.path)}, not an object`;
      issues.push({ path: at, message: `${readFrom}, but ${where} ${why}` });
      return;
    }
    if (typeof value !== 'string') {
      issues.push({ path: at, message: `${readFrom}, but ${itemName} of ${where} is ${kindOf(value)}, not text` });
      return;
    }
    const text = value.trim();
    if (text !== '') into.push(text);
  });
}
