import type { CatalogRecord, Draft, DraftValues } from '../types.js';
import type { FieldIssue } from '../../contract/issues.js';
import { LIST_FIELD, OVERRIDES_PREFIX, TEXT_FIELDS, type FieldMap, type TextField } from './fields.js';
import { appendList, lookup, toOverrideValue, toText } from './values.js';

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

function mapOverrides(fields: Record<string, unknown>, plan: ColumnPlan, issues: FieldIssue[]): Record<string, unknown> | undefined {
  const overrides: Record<string, unknown> = {};
  const whole = lookup(fields, plan.overridesObject);
  if (typeof whole === 'object' && whole !== null && !Array.isArray(whole)) {
    for (const [key, raw] of Object.entries(whole)) {
      const value = toOverrideValue(raw);
      if (value !== undefined) overrides[key] = value;
    }
  } else if (whole !== undefined && whole !== null && whole !== '') {
    issues.push({ path: 'overrides', message: 'must be an object of override values, e.g. {"condition": "NEW"}' });
  }
  for (const [key, column] of plan.overrideKeys) {
    const value = toOverrideValue(lookup(fields, column));
    if (value !== undefined) overrides[key] = value;
  }
  return Object.keys(overrides).length > 0 ? overrides : undefined;
}

function draftFrom(record: CatalogRecord, plan: ColumnPlan, separator: string): Draft {
  const { fields } = record;
  const values: DraftValues = {};
  const issues: FieldIssue[] = [];
  for (const [field, column] of plan.text) {
    const text = toText(lookup(fields, column));
    if (text.issue !== undefined) issues.push({ path: field, message: text.issue });
    else if (text.value !== undefined) values[field] = text.value;
  }
  const images: string[] = [];
  for (const column of plan.list) appendList(lookup(fields, column), separator, images, issues, LIST_FIELD);
  if (images.length > 0) values.images_source = images;
  const overrides = mapOverrides(fields, plan, issues);
  if (overrides !== undefined) values.overrides = overrides;
  return { location: record.location, values, issues };
}

/** A function turning one record into a draft under the default mapping plus the given renames. */
export function createRecordMapper(options: MappingOptions = {}): (record: CatalogRecord) => Draft {
  const map = options.map ?? {};
  const separator = options.listSeparator ?? '|';
  let fixed: ColumnPlan | undefined;
  return (record) => {
    let plan: ColumnPlan;
    if (options.fixedColumns) plan = fixed ??= planFor(Object.keys(record.fields), map);
    else plan = planFor(Object.keys(record.fields), map);
    return draftFrom(record, plan, separator);
  };
}
