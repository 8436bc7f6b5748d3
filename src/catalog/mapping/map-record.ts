import type { CatalogNotice, CatalogRecord, Draft, DraftValues, ShapeSends } from '../types.js';
import type { FieldIssue } from '../../contract/issues.js';
import type { Setting } from '../../errors.js';
import { LIST_FIELD, OVERRIDES_PREFIX, TEXT_FIELDS, type FieldMap, type TextField } from './fields.js';
import { appendList, blockedPath, lookup, nestedPlace, toOverrideValue, toText, type Place } from './values.js';
import { isJsonObject } from '../formats/json-values.js';
import { appendEachItem, listPathOf } from './list-path.js';

/** How records become drafts: the renames, and how list cells are split. */
export interface MappingOptions {
  map?: FieldMap;
  /** Separator of list values inside one cell; default `|`. */
  listSeparator?: string;
  /**
   * Every record has the same columns (CSV, TSV), so the column plan is made once from the first record. JSON
   * records may differ from each other, so without this the plan is made for each record.
   */
  fixedColumns?: boolean;
  /**
   * The header's names once read (CSV, TSV), and the source's name: a header with no rows after it is still checked
   * against the mapping, so a file of the wrong shape fails even when it holds no rows.
   */
  header?: { columns(): readonly string[] | undefined; source: string };
  /** How each rename was given, for errors about it (see CatalogOptions.mapFrom). */
  mapFrom?: Record<string, Setting>;
  /** Told, once each, what is worth saying about the catalog as a whole (see CatalogNotice). */
  onNotice?: (notice: CatalogNotice) => void;
  /** What the request's shape sends, for the notice of fields given but not sent (see CatalogOptions.sends). */
  sends?: ShapeSends;
  /**
   * The header already mapped and checked, its notices told (openCatalog does this as soon as the header is read,
   * before any draft is asked for); without it, the header is mapped on the first record.
   */
  headerMapping?: { map: FieldMap };
}

/** Which columns feed which draft fields, for one set of columns. */
interface ColumnPlan {
  text: ReadonlyArray<readonly [TextField, string]>;
  /** The list column itself, then its numbered columns (`images_source.1`, `.2`, ...) in number order. */
  list: readonly string[];
  /** A column holding a whole overrides object (JSON nesting, or `--map overrides=...`). */
  overridesObject: string;
  /** overrides key -> column: dotted headers (`overrides.condition`) and `--map overrides.KEY=...`. */
  overrideKeys: ReadonlyArray<readonly [string, string]>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The columns matching `pattern` (whose first group is a number), in number order. */
export function columnsByNumber(columns: readonly string[], pattern: RegExp): string[] {
  const found: Array<[number, string]> = [];
  for (const column of columns) {
    const match = pattern.exec(column);
    if (match) found.push([Number(match[1]), column]);
  }
  return found.sort((a, b) => a[0] - b[0]).map(([, column]) => column);
}

/** `images_source.1`, `images_source.2`, ... among the columns, in number order. */
export function numberedColumns(columns: readonly string[], base: string): string[] {
  return columnsByNumber(columns, new RegExp(`^${escapeRegExp(base)}\\.(\\d+)$`));
}

function planFor(columns: readonly string[], map: FieldMap): ColumnPlan {
  const text = TEXT_FIELDS.map((field) => [field, map[field] ?? field] as const);
  const listColumn = map[LIST_FIELD] ?? LIST_FIELD;
  const overrideKeys: Array<readonly [string, string]> = [];
  const mappedKeys = new Set<string>();
  for (const [field, column] of Object.entries(map)) {
    if (!field.startsWith(OVERRIDES_PREFIX)) continue;
    const key = field.slice(OVERRIDES_PREFIX.length);
    mappedKeys.add(key);
    overrideKeys.push([key, column]);
  }
  for (const column of columns) {
    if (!column.startsWith(OVERRIDES_PREFIX)) continue;
    const key = column.slice(OVERRIDES_PREFIX.length);
    if (key !== '' && !mappedKeys.has(key)) overrideKeys.push([key, column]);
  }
  return {
    text,
    list: [listColumn, ...numberedColumns(columns, listColumn)],
    overridesObject: map.overrides ?? 'overrides',
    overrideKeys,
  };
}

/**
 * The columns (or a JSON record's keys) that no field reads under `map`. A key counts as read when a dotted path
 * reads into it (`--map sku=meta.barcode` reads `meta`).
 */
export function columnsNotRead(columns: readonly string[], map: FieldMap): string[] {
  const plan = planFor(columns, map);
  const read = new Set<string>([...plan.text.map(([, column]) => column), ...plan.list, plan.overridesObject, ...plan.overrideKeys.map(([, column]) => column)]);
  const roots = new Set<string>();
  for (const column of read) {
    // A list path (`images[].url`) reads its list's key and the keys on the way to it.
    const path = listPathOf(column)?.list ?? column;
    if (path !== column) roots.add(path);
    for (let dot = path.indexOf('.'); dot > 0; dot = path.indexOf('.', dot + 1)) roots.add(path.slice(0, dot));
  }
  return columns.filter((column) => !read.has(column) && !roots.has(column));
}

/** True when a value says something: not absent, null, or empty text. */
function isGiven(raw: unknown): boolean {
  return raw !== undefined && raw !== null && !(typeof raw === 'string' && raw.trim() === '');
}

/** How a place in a JSON record is named in messages: `the key "overrides.price"`, `"price" inside "overrides"`. */
function keyName(column: string): string {
  return `the key ${JSON.stringify(column)}`;
}

function nestedName(column: string): string {
  const dot = column.lastIndexOf('.');
  return `${JSON.stringify(column.slice(dot + 1))} inside ${JSON.stringify(column.slice(0, dot))}`;
}

function givenTwice(first: string, second: string): string {
  return `given twice, as ${first} and as ${second}, so one of its values would be lost`;
}

/**
 * `lookup`, refusing a JSON record that gives the column both as a dotted key and through nested objects
 * (`"meta.barcode"` and `"meta": {"barcode"}`): `lookup` would take the key and drop the other in silence.
 */
function read(fields: Record<string, unknown>, column: string, path: string, issues: FieldIssue[]): unknown {
  const raw = lookup(fields, column);
  if (raw === undefined) {
    // A path through a value that is not an object (`images.uri` where `images` is a list) reads nothing: said, not
    // taken as a field the record leaves out, which would send the listing without it.
    const blocked = column.includes('.') ? blockedPath(fields, column) : undefined;
    if (blocked !== undefined) issues.push({ path, message: `read from ${JSON.stringify(column)}, but ${JSON.stringify(blocked.path)} is ${blocked.kind}, not an object holding ${JSON.stringify(column.slice(blocked.path.length + 1))}` });
    // A list path reads many values; a field of one value (or an override) has no place for them.
    else if (isGiven(listItems(fields, column))) issues.push({ path, message: `read from ${JSON.stringify(column)}, a value from each item of a list: only ${LIST_FIELD} reads a list path (LIST[].KEY)` });
    return raw;
  }
  if (!column.includes('.') || !Object.hasOwn(fields, column)) return raw;
  const nested = nestedPlace(fields, column);
  if (nested === undefined || !isGiven(raw) || !isGiven(nested.holder[nested.key])) return raw;
  issues.push({ path, message: givenTwice(keyName(column), nestedName(column)) });
  return undefined;
}

/** The list a list path (`items[].sku`) reads from, when the record gives one there. */
function listItems(fields: Record<string, unknown>, column: string): unknown {
  const each = listPathOf(column);
  return each === undefined ? undefined : lookup(fields, each.list);
}

/** Where `column` reads its value from: the record's own key, else the end of its dotted path. */
function placeOf(fields: Record<string, unknown>, column: string): Place | undefined {
  return Object.hasOwn(fields, column) ? { holder: fields, key: column } : nestedPlace(fields, column);
}

function mapOverrides(fields: Record<string, unknown>, plan: ColumnPlan, issues: FieldIssue[]): Record<string, unknown> | undefined {
  let overrides: Record<string, unknown> | undefined;
  const whole = read(fields, plan.overridesObject, 'overrides', issues);
  const wholeObject = isJsonObject(whole) ? whole : undefined;
  if (wholeObject !== undefined) {
    // Its own enumerable keys, in Object.keys order, without an array per entry.
    for (const key in wholeObject) {
      if (!Object.hasOwn(wholeObject, key)) continue;
      const value = toOverrideValue(wholeObject[key]);
      if (value !== undefined) overrides = putOverride(overrides, key, value, issues);
    }
  } else if (whole !== undefined && whole !== null && whole !== '') {
    // Text (a CSV cell, which stays text even when it looks like JSON) cannot be an object: each override has its own column.
    const message = typeof whole === 'string' ? 'is text, not an object of override values: give each override a column (or key) of its own, e.g. overrides.condition' : 'must be an object of override values, e.g. {"condition": "NEW"}';
    issues.push({ path: 'overrides', message });
  }
  const keys = plan.overrideKeys;
  for (let i = 0; i < keys.length; i++) {
    const [key, column] = keys[i]!;
    const value = toOverrideValue(read(fields, column, OVERRIDES_PREFIX + key, issues));
    if (value === undefined) continue;
    if (wholeObject !== undefined && Object.hasOwn(wholeObject, key) && toOverrideValue(wholeObject[key]) !== undefined) {
      const place = placeOf(fields, column);
      // A column whose path leads into the overrides object (`--map overrides.price=overrides.price`) reads the same value.
      if (place?.holder === wholeObject && place.key === key) continue;
      const inWhole = nestedName(`${plan.overridesObject}.${key}`);
      issues.push({ path: OVERRIDES_PREFIX + key, message: givenTwice(Object.hasOwn(fields, column) ? keyName(column) : nestedName(column), inWhole) });
      continue;
    }
    overrides = putOverride(overrides, key, value, issues);
  }
  return overrides;
}

const PROTO_KEY = 'a key named __proto__ cannot be sent (in an object it sets the prototype, not a field): rename its key or column';

/** `overrides[key] = value`; a `__proto__` key, whose value assignment would drop without a word, is an issue of the row. */
function putOverride(overrides: Record<string, unknown> | undefined, key: string, value: unknown, issues: FieldIssue[]): Record<string, unknown> | undefined {
  if (key === '__proto__') {
    issues.push({ path: 'overrides.__proto__', message: PROTO_KEY });
    return overrides;
  }
  (overrides ??= {})[key] = value;
  return overrides;
}

/** Appends the trimmed, non-empty parts of a list cell (the common case of appendList, without its arrays). */
function appendCell(cell: string, separator: string, into: string[]): void {
  if (cell.indexOf(separator) < 0) {
    const value = cell.trim();
    if (value !== '') into.push(value);
    return;
  }
  const parts = cell.split(separator);
  for (let i = 0; i < parts.length; i++) {
    const value = parts[i]!.trim();
    if (value !== '') into.push(value);
  }
}

/** A text field's value from its column: trimmed, absent when empty; a value of another kind is an issue. */
function textOf(fields: Record<string, unknown>, column: string, field: TextField, issues: FieldIssue[]): string | undefined {
  const raw = read(fields, column, field, issues);
  if (raw === undefined || raw === null) return undefined;
  // Text cells are most of what is read: trimmed here without toText's result object.
  if (typeof raw === 'string') {
    const value = raw.trim();
    return value === '' ? undefined : value;
  }
  const coerced = toText(raw);
  if (coerced.issue !== undefined) issues.push({ path: field, message: coerced.issue });
  return coerced.value;
}

function draftFrom(record: CatalogRecord, plan: ColumnPlan, separator: string): Draft {
  const { fields } = record;
  const values: DraftValues = {};
  const issues: FieldIssue[] = [];
  const text = plan.text;
  for (let i = 0; i < text.length; i++) {
    const field = text[i]![0];
    const value = textOf(fields, text[i]![1], field, issues);
    if (value !== undefined) values[field] = value;
  }
  const images: string[] = [];
  const list = plan.list;
  for (let i = 0; i < list.length; i++) {
    const column = list[i]!;
    const each = Object.hasOwn(fields, column) ? undefined : listPathOf(column);
    if (each !== undefined) {
      appendEachItem(fields, column, each, images, issues, LIST_FIELD);
      continue;
    }
    const raw = read(fields, column, LIST_FIELD, issues);
    if (typeof raw === 'string') appendCell(raw, separator, images);
    else appendList(raw, separator, images, issues, LIST_FIELD);
  }
  if (images.length > 0) values.images_source = images;
  const overrides = mapOverrides(fields, plan, issues);
  if (overrides !== undefined) values.overrides = overrides;
  return { location: record.location, values, issues };
}

/** A function turning one record into a draft under the default mapping plus the given renames. */
export function createRecordMapper(options: MappingOptions = {}): (record: CatalogRecord) => Draft {
  const map = options.map ?? {};
  const separator = options.listSeparator ?? '|';
  if (options.fixedColumns) {
    let fixed: ColumnPlan | undefined;
    return (record) => draftFrom(record, (fixed ??= planFor(Object.keys(record.fields), map)), separator);
  }
  // A plan depends only on the numbered list columns and the dotted overrides columns, which most JSON records do
  // not have: for those the plan is made once; for the others, again when those columns change.
  const listPrefix = `${map[LIST_FIELD] ?? LIST_FIELD}.`;
  const listFirst = listPrefix.charCodeAt(0);
  const overridesFirst = OVERRIDES_PREFIX.charCodeAt(0);
  const plain = planFor([], map);
  let lastKey = '';
  let last = plain;
  return (record) => {
    // (An inherited key may join the key; the plan is still made from the own keys, and lookups take only those.)
    let key = '';
    for (const column in record.fields) {
      const first = column.charCodeAt(0);
      if (first !== listFirst && first !== overridesFirst) continue;
      if (column.startsWith(listPrefix) || column.startsWith(OVERRIDES_PREFIX)) key += `${column.length}:${column}`;
    }
    if (key === '') return draftFrom(record, plain, separator);
    if (key !== lastKey) {
      last = planFor(Object.keys(record.fields), map);
      lastKey = key;
    }
    return draftFrom(record, last, separator);
  };
}
