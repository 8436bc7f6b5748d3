import type { Location } from '../errors.js';
import type { FieldIssue } from '../contract/issues.js';

/** Input formats the reader understands. */
export const FORMATS = ['csv', 'tsv', 'json', 'ndjson'] as const;
export type Format = (typeof FORMATS)[number];

/** The shop-system exports the reader knows, by `--preset` name. */
export const PRESETS = ['shopify', 'woocommerce'] as const;
export type Preset = (typeof PRESETS)[number];

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

/** Options of the catalog reader (sources, formats, mapping). */
export interface CatalogOptions {
  /** Override the format found from the name, Content-Type or content. */
  format?: Format;
  /** CSV delimiter; sniffed among , ; tab | when absent. */
  delimiter?: string;
  /** For JSON: the key of the array inside the top-level object, e.g. `products`. */
  jsonPath?: string;
  /** Separator of list values inside one cell (default `|`). */
  listSeparator?: string;
  /** field -> column renames, from `--map` and `--mapping`. */
  map?: Record<string, string>;
  /** A preset for a shop system's export. */
  preset?: Preset;
  /** Extra headers for http(s) sources, `Name: value`. */
  sourceHeaders?: string[];
  /** Endpoint of an S3-compatible store (path-style addressing is then used). */
  s3Endpoint?: string;
  signal?: AbortSignal;
}

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
}
