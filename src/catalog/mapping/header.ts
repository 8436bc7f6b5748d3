import { namedSetting, UsageError, type NameSetting, type Setting } from '../../errors.js';
import { didYouMean } from '../../did-you-mean.js';
import { shellWord } from '../../shell-words.js';
import { LIST_FIELD, OVERRIDES_PREFIX, TEXT_FIELDS, type FieldMap } from './fields.js';
import { numberedColumns } from './map-record.js';

/**
 * A name taken from a catalog (a header, a key), quoted for a message: JSON's escapes (quotes, C0 controls), and
 * also DEL, the C1 controls and the bidi controls as `\uXXXX`, so that a header cannot move the cursor, recolour or
 * reorder a terminal line.
 */
export function quoteName(name: string): string {
  return JSON.stringify(name).replace(/[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The column most like `wanted`, ignoring case, when it is close enough to be a likely typo. */
export function closestColumn(wanted: string, columns: readonly string[]): string | undefined {
  const byLower = new Map(columns.map((column) => [column.toLowerCase(), column]));
  const guess = didYouMean(wanted.toLowerCase(), byLower.keys());
  return guess === undefined ? undefined : byLower.get(guess);
}

export function listColumns(columns: readonly string[]): string {
  const shown = columns.slice(0, 12).map(quoteName);
  return `${shown.join(', ')}${columns.length > shown.length ? `, ... (${columns.length} columns)` : ''}`;
}

/** The shop system whose export the header looks like, when it is one a preset reads. */
export function exportLookalike(columns: readonly string[]): { system: string; preset: string } | undefined {
  if (columns.includes('Handle') && columns.includes('Variant SKU')) return { system: 'Shopify', preset: 'shopify' };
  if (columns.includes('Type') && columns.includes('Parent')) return { system: 'WooCommerce', preset: 'woocommerce' };
  if (columns.includes('Reference #')) return { system: 'PrestaShop', preset: 'prestashop' };
  return undefined;
}

function presetHint(columns: readonly string[], name: NameSetting): string {
  const like = exportLookalike(columns);
  return like === undefined ? '' : `; this looks like a ${like.system} export: try ${name('preset')} ${like.preset}`;
}

/** A header name without its surrounding spaces, inner runs of spaces as one. */
function spaced(name: string): string {
  return name.trim().replace(/\s+/g, ' ');
}

/** A header name as matched to a field's own name: spaced, and in lower case. */
function loose(name: string): string {
  return spaced(name).toLowerCase();
}

/** A header mapped to the fields: which column gives which field, and the columns found only by a loose match. */
export interface HeaderMapping {
  /**
   * field -> the header's own name of the column it is read from: the renames as given, with the header's spelling
   * where a name matched loosely (`"SKU "` for sku). A field absent here is read from the column named as the field.
   */
  map: FieldMap;
  /** Columns that match their field only when spaces (and, for a field's own name, case) are ignored. */
  loose: Array<{ column: string; field: string }>;
}

/**
 * The columns of the header that `wanted` may mean: a rename matches ignoring surrounding and repeated spaces (a
 * `map` value is trimmed, so a header's trailing space could not be named otherwise); a field's own name matches
 * ignoring case as well (`Sku`, `SKU ` for sku). A rename keeps its case: a wrong case is a typo, told with a
 * did-you-mean.
 */
function looseMatches(columns: readonly string[], wanted: string, renamed: boolean): string[] {
  const key = renamed ? spaced(wanted) : loose(wanted);
  return columns.filter((column) => (renamed ? spaced(column) : loose(column)) === key);
}

/**
 * For sources with a header (CSV, TSV): finds the column of every field, and checks that every renamed column is in
 * the header and that some column gives the SKU. Throws a UsageError naming the rename (its setting as `mapFrom`
 * tells where it was given; default `map FIELD=COLUMN`), the column and the header's closest name. Done once, for
 * the header, so a wrong mapping is one clear message rather than an error on every row.
 */
export function mapHeader(columns: readonly string[], map: FieldMap, source: string, mapFrom: Readonly<Record<string, Setting>> = {}): HeaderMapping {
  const resolved: FieldMap = { ...map };
  const found: HeaderMapping['loose'] = [];
  // The field's own name as a column: the text fields and the list field (an `overrides` object column is JSON's).
  const wanted: Array<readonly [string, string, boolean]> = [...TEXT_FIELDS, LIST_FIELD].map((field) => [field, map[field] ?? field, map[field] !== undefined] as const);
  for (const [field, column] of Object.entries(map)) {
    if (field === 'overrides' || field.startsWith(OVERRIDES_PREFIX)) wanted.push([field, column, true]);
  }
  for (const [field, column, renamed] of wanted) {
    if (columns.includes(column)) continue;
    const matches = looseMatches(columns, column, renamed);
    if (matches.length > 1) {
      throw new UsageError(`${source}: columns ${matches.map(quoteName).join(' and ')} all match ${renamed ? quoteName(column) : field} when ${renamed ? 'spaces are' : 'case and spaces are'} ignored`, {
        hint: (name) => `name the one to read with ${name('map')} ${field}=COLUMN`,
      });
    }
    const match = matches[0];
    if (match !== undefined) {
      resolved[field] = match;
      found.push({ column: match, field });
      continue;
    }
    if (!renamed) continue;
    if (field === LIST_FIELD && numberedColumns(columns, column).length > 0) continue;
    const guess = closestColumn(column, columns);
    const setting = mapFrom[field] ?? { key: 'map', value: `${field}=${column}` };
    throw new UsageError((name) => `${namedSetting(setting, name)}: ${source} has no column ${quoteName(column)}`, {
      hint: guess ? `did you mean ${quoteName(guess)}?` : `its columns: ${listColumns(columns)}`,
      setting,
    });
  }
  if (resolved.sku === undefined && !columns.includes('sku')) {
    const guess = columns.find((column) => column.toLowerCase().includes('sku')) ?? closestColumn('sku', columns);
    throw new UsageError(`${source} has no sku column`, {
      hint: (name) => `name the SKU column with ${name('map')} ${guess ? shellWord(`sku=${guess}`) : 'sku=COLUMN'} (its columns: ${listColumns(columns)})${presetHint(columns, name)}`,
    });
  }
  return { map: resolved, loose: found };
}

/**
 * For sources with a header (CSV, TSV): every mapped column must be in it, and some column must give the SKU.
 * Throws a UsageError otherwise (see mapHeader).
 */
export function checkHeader(columns: readonly string[], map: FieldMap, source: string): void {
  mapHeader(columns, map, source);
}
