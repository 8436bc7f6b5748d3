import type { Catalog, CatalogOptions, Draft, ReadProgress } from './types.js';
import { openRecords, type RecordStream } from './read-records.js';
import { checkTarget, mapRecords } from './mapping/index.js';
import { presetDrafts } from './presets/index.js';
import { UsageError } from '../errors.js';

/** Checks what can be checked before anything is read: the mapping's targets, and that it is not mixed with a preset. */
export function checkCatalogOptions(options: CatalogOptions): void {
  const map = options.map ?? {};
  for (const field of Object.keys(map)) checkTarget(field, `--map ${field}=${map[field]}`);
  if (options.preset !== undefined && Object.keys(map).length > 0) {
    throw new UsageError(`--preset ${options.preset} maps the columns itself; it cannot be combined with --map or --mapping`);
  }
}

function draftsOf(stream: RecordStream, options: CatalogOptions, headerColumns: () => readonly string[] | undefined): AsyncIterable<Draft> {
  if (options.preset !== undefined) return presetDrafts(options.preset, stream.records);
  return mapRecords(stream.records, {
    ...(options.map === undefined ? {} : { map: options.map }),
    ...(options.listSeparator === undefined ? {} : { listSeparator: options.listSeparator }),
    fixedColumns: stream.format === 'csv' || stream.format === 'tsv',
    header: { columns: headerColumns, source: stream.name },
  });
}

/**
 * Opens a catalog: source -> format -> mapping (or a preset). Throws SourceError when the source cannot be opened
 * and UsageError for a mapping that cannot work; the drafts are read lazily, one at a time.
 */
export async function openCatalog(source: string, options: CatalogOptions = {}): Promise<Catalog> {
  checkCatalogOptions(options);
  let header: readonly string[] | undefined;
  const stream = await openRecords(source, { ...options, onHeader: (columns) => (header = columns) });
  return { name: stream.name, drafts: draftsOf(stream, options, () => header), progress: () => stream.progress() };
}

/**
 * Several sources read one after the other as one catalog (one run: one index sequence, one duplicate check). The
 * first source is opened now, so that a missing first source fails before anything else; each later one is opened
 * when the reading reaches it.
 */
export async function openCatalogs(sources: readonly string[], options: CatalogOptions = {}): Promise<Catalog> {
  const [first, ...rest] = sources;
  if (first === undefined) throw new UsageError('no catalog source given');
  let current = await openCatalog(first, options);
  let doneBytes = 0;
  let doneTotal: number | undefined = 0;
  let unopened = rest.length;
  async function* drafts(): AsyncIterable<Draft> {
    yield* current.drafts;
    for (const source of rest) {
      unopened--;
      const finished = current.progress();
      doneBytes += finished.bytesRead;
      doneTotal = doneTotal === undefined || finished.totalBytes === undefined ? undefined : doneTotal + finished.totalBytes;
      current = await openCatalog(source, options);
      yield* current.drafts;
    }
  }
  return {
    name: sources.join(', '),
    drafts: drafts(),
    progress(): ReadProgress {
      const now = current.progress();
      // The total is known only once every source has been opened.
      const total = unopened > 0 || doneTotal === undefined || now.totalBytes === undefined ? undefined : doneTotal + now.totalBytes;
      return { bytesRead: doneBytes + now.bytesRead, ...(total === undefined ? {} : { totalBytes: total }) };
    },
  };
}
