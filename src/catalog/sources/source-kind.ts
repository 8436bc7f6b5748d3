import type { CatalogOptions } from '../types.js';
import type { OpenedSource } from './types.js';

/**
 * One kind of catalog source (a local file, stdin, an http(s) URL, an S3 object...): which source names it takes and
 * how it opens them. `openSource` asks each kind of its ordered list in turn; a new kind is one more entry there.
 */
export interface SourceKind {
  /** A short name for the kind, e.g. `file`, `stdin`, `http`, `s3`. */
  readonly name: string;
  /** The addresses it takes, as a person would write them, e.g. `http(s)://…`; listed when no kind takes a source. */
  readonly forms: string;
  /** Whether this kind takes the source name. */
  match(source: string): boolean;
  /** Opens the source, taking from the options only what this kind uses. */
  open(source: string, options: CatalogOptions): Promise<OpenedSource>;
}

/** The scheme of a `scheme://…` source, in lower case (schemes are case-insensitive); undefined for a plain path. */
export function schemeOf(source: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):\/\//i.exec(source)?.[1]?.toLowerCase();
}

/**
 * The sources a catalog argument takes, as the commands' help names them. Help is built at start-up, before any
 * source module is loaded, so it cannot be read from `SOURCE_KINDS`: test/unit/catalog/source-kinds.test.ts fails
 * when a kind is missing here.
 */
export const CATALOG_SOURCES_HELP = 'catalog: a file, - for stdin, an http(s):// URL, s3://bucket/key or s3://bucket/prefix/';
