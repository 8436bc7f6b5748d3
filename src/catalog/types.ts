import type { Location, Setting } from '../errors.js';
import type { FieldIssue } from '../contract/issues.js';

/** Input formats the reader understands. */
export const FORMATS = ['csv', 'tsv', 'json', 'ndjson'] as const;
export type Format = (typeof FORMATS)[number];

/** A record the parser could not read: where it is, and why, written for the person who owns the catalog. */
export interface RecordError {
  location: Location;
  error: string;
}

/** What the reader yields for each input record: the record, or why it could not be read. */
export type RecordItem = CatalogRecord | RecordError;

export function isRecordError(item: RecordItem): item is RecordError {
  return 'error' in item;
}

/** One raw record as the format parser produced it, before mapping. */
export interface CatalogRecord {
  location: Location;
  /** CSV: header -> cell (always strings). JSON/NDJSON: the object as parsed. */
  fields: Record<string, unknown>;
}

/**
 * The values of a listing as the catalog gives them, named as the API names them (snake_case), before defaults
 * and validation. `title` is used by the wrapped shape.
 */
export interface DraftValues {
  sku?: string;
  title?: string;
  marketplace?: string;
  images_source?: string[];
  merchant_location_key?: string;
  fulfillment_policy_id?: string;
  payment_policy_id?: string;
  return_policy_id?: string;
  overrides?: Record<string, unknown>;
}

/**
 * One input row after mapping. A record the reader could not parse is still a draft, with `issues` saying why,
 * so that every input row ends in the report exactly once.
 */
export interface Draft {
  location: Location;
  values: DraftValues;
  /** Problems found while reading or mapping this row; non-empty means the row is invalid. */
  issues: FieldIssue[];
  /**
   * How many input rows this draft accounts for, when a preset folds several rows into one listing (Shopify's extra
   * image rows, WooCommerce's variable parent). Absent means 1. The drafts' rows add up to the rows read.
   */
  rows?: number;
  /**
   * Set for a row that is, by design, not a listing (a WooCommerce grouped product): it is reported `skipped` with
   * this reason instead of being checked or sent.
   */
  skip?: string;
}

/**
 * The settings catalog errors name (their `setting.key`): the CatalogOptions a caller passes, and `mapping`, a
 * mapping file (see parseMappingJson).
 */
export type CatalogSetting = 'format' | 'delimiter' | 'jsonPath' | 'map' | 'mapping' | 'preset' | 'sourceHeaders';

/** Options of the catalog reader (sources, formats, mapping). */
export interface CatalogOptions {
  /**
   * The request shape and the fields its body sends: a field some row gives that it does not send is told once at
   * the end of reading (a `not-sent` notice), since that value goes nowhere.
   */
  sends?: ShapeSends;
  /** Override the format found from the name, Content-Type or content. */
  format?: Format;
  /** CSV delimiter; sniffed among , ; tab | when absent. */
  delimiter?: string;
  /** For JSON: the key of the array inside the top-level object, e.g. `products`. */
  jsonPath?: string;
  /** Separator of list values inside one cell (default `|`). */
  listSeparator?: string;
  /** field -> column renames. */
  map?: Record<string, string>;
  /**
   * How each rename was given, by field, for errors about it (their `setting`): e.g. `{ key: 'mapping', value:
   * 'shop.json (sku)' }` for a rename read from a mapping file. Default `{ key: 'map', value: 'FIELD=COLUMN' }`.
   */
  mapFrom?: Record<string, Setting>;
  /**
   * Told what is worth saying once about a catalog as a whole (see CatalogNotice): header names matched loosely and
   * columns no field reads as soon as the header is read, fields empty in every row at the end of reading.
   */
  onNotice?: (notice: CatalogNotice) => void;
  /**
   * A preset for a shop system's export: one of PRESET_NAMES, or `auto` to recognise the export by its header
   * (src/catalog/presets/index.ts, the registry; a name it does not hold is refused by checkCatalogOptions).
   */
  preset?: string;
  /** Extra headers for http(s) sources, `Name: value`. */
  sourceHeaders?: string[];
  /** Endpoint of an S3-compatible store (path-style addressing is then used). */
  s3Endpoint?: string;
  signal?: AbortSignal;
}

/**
 * Something about a catalog as a whole, told once (not per row) and not an error. `message` is written for the person
 * who owns the catalog; names taken from the catalog in it are quoted and escaped (see `quoteName`).
 * - `loose-header`: header names that match a field only when case and spaces are ignored (`"SKU "` read as sku).
 * - `columns-not-read`: columns (CSV, TSV) or keys (JSON, NDJSON) that no listing field reads: the first record's when
 *   it is read, then those only later records hold, at the end of reading.
 * - `empty-field`: an optional field that no row of the source gives (`0 of 194 rows have images_source`).
 * - `preset`: which preset `auto` chose for the source by its header (`preset`), or that none matched.
 * - `not-sent`: fields some row gives that the request's shape has no place for (`title` in the flat shape), told
 *   only when the options say what the shape sends (`sends`).
 * - `mapping-proposal`: columns that likely give fields no column gives yet (`SKU_ID` for sku, `Titel` for title).
 */
export type CatalogNotice =
  | { kind: 'loose-header'; source: string; matches: Array<{ column: string; field: string }>; message: string }
  | { kind: 'columns-not-read'; source: string; columns: string[]; message: string }
  | { kind: 'preset'; source: string; preset?: string; message: string }
  | { kind: 'not-sent'; source: string; shape: string; fields: string[]; message: string }
  | { kind: 'mapping-proposal'; source: string; proposal: Array<{ field: string; column: string; typo: boolean }>; given: Record<string, string>; message: string }
  | {
      kind: 'empty-field';
      source: string;
      field: OptionalField;
      /** Rows read (readable rows; for a preset, listings). */
      rows: number;
      /** The column (or JSON key) the field is read from; absent for a preset. */
      column?: string;
      /** For a source with a header: whether that column is in it. */
      inHeader?: boolean;
      message: string;
    };

/** A request shape's name and the draft fields (and `overrides`) its body carries. */
export interface ShapeSends {
  shape: string;
  fields: readonly string[];
}

/** The draft fields a row may leave empty (defaults, saved configurations or the shape may cover them). */
export const OPTIONAL_FIELDS = ['title', 'marketplace', 'images_source', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id'] as const;
export type OptionalField = (typeof OPTIONAL_FIELDS)[number];

/** How far through its bytes a catalog is, for progress and ETA. */
export interface ReadProgress {
  bytesRead: number;
  /** Known for files, S3 objects and HTTP answers with Content-Length. */
  totalBytes?: number;
}

/** An opened catalog: its drafts, in input order, and how far reading has got. */
export interface Catalog {
  /** The source as the user named it. */
  name: string;
  drafts: AsyncIterable<Draft>;
  progress(): ReadProgress;
  /** Several sources read as one: those not opened yet, in order (a run that stops names them as not read). */
  notOpened?(): readonly string[];
}
