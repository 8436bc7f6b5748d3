import { OPTIONAL_FIELDS, type CatalogNotice, type Draft, type OptionalField, type ShapeSends } from '../types.js';
import { quoteName } from './header.js';
import type { FieldMap } from './fields.js';
import type { ProposedColumn } from './propose.js';
import { formatLocation } from '../../errors.js';
import { MAX_KEYS, type LaterKey } from './keys-not-read.js';

/** Names shown in one notice; the rest are counted ("and 4 more"), so a notice stays one short line. */
export const NAMES_SHOWN = 6;

function someNames(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).map(quoteName).join(', ');
  return names.length > NAMES_SHOWN ? `${shown} and ${names.length - NAMES_SHOWN} more` : shown;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** `"SKU " read as sku`: header names that matched a field only loosely. */
export function looseHeaderNotice(source: string, matches: Array<{ column: string; field: string }>): CatalogNotice | undefined {
  if (matches.length === 0) return undefined;
  const list = matches.map(({ column, field }) => `${quoteName(column)} as ${field}`).join(', ');
  return { kind: 'loose-header', source, matches, message: `${source}: read ${list} (header names matched ignoring case and spaces)` };
}

/** `"SKU_ID" for sku, "Titel" for title (did you mean title?)`: the columns that likely give the fields no column gives. */
export function proposalNotice(source: string, proposal: ProposedColumn[], given: FieldMap): CatalogNotice | undefined {
  if (proposal.length === 0) return undefined;
  const list = proposal.map(({ column, field, typo }) => `${quoteName(column)} for ${field}${typo ? ` (did you mean ${field}?)` : ''}`).join(', ');
  return { kind: 'mapping-proposal', source, proposal, given, message: `${source}: columns that look like listing fields under other names: ${list}` };
}

/** The columns (CSV, TSV) or the first record's keys (JSON, NDJSON) that no field reads; one line, the list capped. */
export function columnsNotReadNotice(source: string, columns: string[], keys: boolean): CatalogNotice | undefined {
  if (columns.length === 0) return undefined;
  const what = keys ? `${plural(columns.length, 'key', 'keys')} of the first record` : plural(columns.length, 'column', 'columns');
  return { kind: 'columns-not-read', source, columns, message: `${source}: ${what} not read by any listing field: ${someNames(columns)}` };
}

/**
 * The keys no field reads that only records after the first hold (JSON records need not share their keys), told at
 * the end of reading, each with where it was first seen; `capped` when so many keys came that the count stopped.
 */
export function laterKeysNotReadNotice(source: string, later: readonly LaterKey[], capped: boolean): CatalogNotice | undefined {
  if (later.length === 0) return undefined;
  const named = later.map(({ key, at }) => `${quoteName(key)} (first at ${formatLocation(at)})`);
  const shown = named.slice(0, NAMES_SHOWN).join(', ');
  const rest = later.length > NAMES_SHOWN ? ` and ${later.length - NAMES_SHOWN} more` : '';
  const stop = capped ? ` (keys past the first ${MAX_KEYS.toLocaleString('en-US')} were not looked at)` : '';
  const columns = later.map(({ key }) => key);
  return { kind: 'columns-not-read', source, columns, message: `${source}: ${plural(later.length, 'key', 'keys')} of later records not read by any listing field: ${shown}${rest}${stop}` };
}

/** Where each optional field is read from, for the end-of-reading notices. */
export interface FieldColumns {
  /** field -> the column (or key) it is read from, renames and loose matches applied. */
  map: FieldMap;
  /** The header, for sources that have one. */
  header?: readonly string[];
  /** Listings rather than rows: a preset folds rows into listings, and its columns are its own. */
  preset?: boolean;
  /** What the request's shape sends: the fields rows give beyond it are told (see CatalogOptions.sends). */
  sends?: ShapeSends;
}

function isUnreadable(draft: Draft): boolean {
  return draft.issues.length > 0 && draft.issues[0]!.path === '(record)';
}

/**
 * Counts, over every readable row, which optional fields some row gives, so that a field that no row gives is told
 * once at the end of reading (`0 of 194 rows have images_source`) rather than passing unseen.
 */
export class FieldCounter {
  rows = 0;
  readonly #given = new Set<OptionalField>();
  #overridesGiven = false;

  add(draft: Draft): void {
    if (draft.skip !== undefined || isUnreadable(draft)) return;
    this.rows++;
    const values = draft.values;
    if (!this.#overridesGiven && values.overrides !== undefined && Object.keys(values.overrides).length > 0) this.#overridesGiven = true;
    if (this.#given.size === OPTIONAL_FIELDS.length) return;
    for (let i = 0; i < OPTIONAL_FIELDS.length; i++) {
      const field = OPTIONAL_FIELDS[i]!;
      if (values[field] !== undefined) this.#given.add(field);
    }
  }

  /** The fields some row gave that `sends` has no place for, as one notice; none when every one is sent. */
  #notSent(source: string, sends: ShapeSends): CatalogNotice | undefined {
    const given: string[] = OPTIONAL_FIELDS.filter((field) => this.#given.has(field));
    if (this.#overridesGiven) given.push('overrides');
    const fields = given.filter((field) => !sends.fields.includes(field));
    if (fields.length === 0) return undefined;
    const which = fields.length === 1 ? `${fields[0]} is` : `${fields.join(', ')} are`;
    const what = fields.length === 1 ? 'no such field' : 'no such fields';
    return { kind: 'not-sent', source, shape: sends.shape, fields, message: `${source}: ${which} given but not sent: the ${sends.shape} request has ${what}` };
  }

  /** One notice per optional field that no row gave; none when no row was read. */
  notices(source: string, columns: FieldColumns): CatalogNotice[] {
    if (this.rows === 0) return [];
    const notices: CatalogNotice[] = [];
    const one = this.rows === 1;
    const unit = columns.preset ? (one ? 'listing' : 'listings') : one ? 'row' : 'rows';
    const verb = one ? 'has' : 'have';
    const notSent = columns.sends === undefined ? undefined : this.#notSent(source, columns.sends);
    if (notSent !== undefined) notices.push(notSent);
    for (const field of OPTIONAL_FIELDS) {
      if (this.#given.has(field)) continue;
      const head = `${source}: 0 of ${this.rows} ${unit} ${verb} ${field}`;
      if (columns.preset) {
        notices.push({ kind: 'empty-field', source, field, rows: this.rows, message: head });
        continue;
      }
      const column = columns.map[field] ?? field;
      if (columns.header === undefined) {
        const from = column === field ? '' : ` (read from ${quoteName(column)})`;
        notices.push({ kind: 'empty-field', source, field, rows: this.rows, column, message: `${head}${from}` });
        continue;
      }
      const inHeader = columns.header.includes(column) || columns.header.some((name) => name.startsWith(`${column}.`));
      const why = inHeader ? `column ${quoteName(column)} is empty in every row` : `the header has no column ${quoteName(column)}`;
      notices.push({ kind: 'empty-field', source, field, rows: this.rows, column, inHeader, message: `${head} (${why})` });
    }
    return notices;
  }
}
