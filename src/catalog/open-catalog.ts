import type { Catalog, CatalogNotice, CatalogOptions, Draft, Format, ReadProgress, ShapeSends } from './types.js';
import { openRecords, type RecordItem, type RecordStream } from './read-records.js';
import { checkTarget, FieldCounter, mapHeaderTelling, mapRecords, type HeaderMapping } from './mapping/index.js';
import { batchedRecords, hasBatches } from './formats/batches.js';
import { PRESETS, presetChoiceNotice, presetKind, recognisePreset, requireColumns, type PresetKind } from './presets/index.js';
import { didYouMean } from '../did-you-mean.js';
import { ConfigError, namedSetting, UsageError } from '../errors.js';
import { redactSourceName } from '../secret-url.js';
import { schemeOf } from './sources/source-kind.js';
import { fileIdentity } from '../fs/file-identity.js';
import { fileURLToPath } from 'node:url';

/** Checks what can be checked before anything is read: the mapping's targets, the preset's name, and that they are not mixed. */
export function checkCatalogOptions(options: CatalogOptions): void {
  const sends: unknown = options.sends;
  if (sends !== undefined && !isShapeSends(sends)) throw new ConfigError('the catalog option sends must be { shape: string, fields: string[] }');
  const map = options.map ?? {};
  for (const field of Object.keys(map)) checkTarget(field, options.mapFrom?.[field] ?? { key: 'map', value: `${field}=${map[field]}` });
  if (options.preset !== undefined && !(PRESETS as readonly string[]).includes(options.preset)) {
    const setting = { key: 'preset', value: options.preset };
    const guess = didYouMean(options.preset, PRESETS);
    throw new UsageError((name) => `${namedSetting(setting, name)}: no such preset`, { hint: `${guess === undefined ? '' : `did you mean ${guess}? `}the presets: ${PRESETS.join(', ')}`, setting });
  }
  if (options.preset !== undefined && Object.keys(map).length > 0) {
    const setting = { key: 'preset', value: options.preset };
    throw new UsageError((name) => `${namedSetting(setting, name)} maps the columns itself; it cannot be combined with ${name('map')} or ${name('mapping')}`, { setting });
  }
}

function isShapeSends(value: unknown): value is ShapeSends {
  if (typeof value !== 'object' || value === null) return false;
  const { shape, fields } = value as Record<string, unknown>;
  return typeof shape === 'string' && Array.isArray(fields) && fields.every((field) => typeof field === 'string');
}

/** Drafts counted on their way out, so that optional fields no listing gives are told at the end of reading. */
async function* counted(drafts: AsyncIterable<Draft>, source: string, notify: (notice: CatalogNotice) => void, sends: ShapeSends | undefined): AsyncIterable<Draft> {
  const counter = new FieldCounter();
  for await (const draft of drafts) {
    counter.add(draft);
    yield draft;
  }
  for (const notice of counter.notices(source, { map: {}, preset: true, ...(sends === undefined ? {} : { sends }) })) notify(notice);
}

function draftsOf(stream: RecordStream, records: AsyncIterable<RecordItem>, options: CatalogOptions, preset: PresetKind | undefined, headerColumns: () => readonly string[] | undefined, headerMapping: HeaderMapping | undefined): AsyncIterable<Draft> {
  if (preset !== undefined) {
    const drafts = preset.drafts(records);
    return options.onNotice === undefined ? drafts : counted(drafts, stream.name, options.onNotice, options.sends);
  }
  return mapRecords(records, {
    ...(options.map === undefined ? {} : { map: options.map }),
    ...(options.listSeparator === undefined ? {} : { listSeparator: options.listSeparator }),
    ...(options.mapFrom === undefined ? {} : { mapFrom: options.mapFrom }),
    ...(options.onNotice === undefined ? {} : { onNotice: options.onNotice }),
    ...(options.sends === undefined ? {} : { sends: options.sends }),
    ...(headerMapping === undefined ? {} : { headerMapping }),
    fixedColumns: isTabular(stream.format),
    header: { columns: headerColumns, source: stream.name },
  });
}

function isTabular(format: Format): boolean {
  return format === 'csv' || format === 'tsv';
}

/** Records whose first item (or batch) is read now, and then read from the start as if it had not been. */
interface ReadAhead<T> {
  items: AsyncGenerator<T>;
  /** Ends the reading, for a catalog that is given up before it is read. */
  close: () => Promise<void>;
}

/**
 * Reads the first item of `items` now. A failure to read it is kept and thrown where it would have been without
 * the read-ahead, by the first read of the items, so a source that fails mid-way fails the same way.
 */
async function readAhead<T>(items: AsyncIterable<T>): Promise<ReadAhead<T>> {
  const iterator = items[Symbol.asyncIterator]();
  let first: IteratorResult<T>;
  let failure: { error: unknown } | undefined;
  try {
    first = await iterator.next();
  } catch (error) {
    first = { done: true, value: undefined };
    failure = { error };
  }
  async function* again(): AsyncGenerator<T> {
    try {
      if (failure !== undefined) throw failure.error;
      if (first.done === true) return;
      yield first.value;
      for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
    } finally {
      await iterator.return?.();
    }
  }
  return {
    items: again(),
    close: async () => {
      await iterator.return?.();
    },
  };
}

/**
 * A CSV or TSV source's first records, read now, so that its header is known when it is opened: a mapping that
 * cannot work (a renamed column not in the header, no SKU column) fails the open, before anything is sent or
 * written, and the header's notices come before any row's.
 */
async function withHeaderRead(records: AsyncIterable<RecordItem>): Promise<{ records: AsyncIterable<RecordItem>; close: () => Promise<void> }> {
  if (hasBatches(records)) {
    const ahead = await readAhead(records.batches());
    return { records: batchedRecords(() => ahead.items), close: ahead.close };
  }
  const ahead = await readAhead(records);
  return { records: ahead.items, close: ahead.close };
}

/**
 * Opens a catalog: source -> format -> mapping (or a preset). Throws SourceError when the source cannot be opened
 * and UsageError for a mapping or a preset that cannot work (for CSV and TSV, checked against the header here); the
 * drafts are read lazily, one at a time. Notices go to `options.onNotice`.
 */
export async function openCatalog(source: string, options: CatalogOptions = {}): Promise<Catalog> {
  return (await openClosable(source, options)).catalog;
}

/** openCatalog, and how to release the source should it not be read. */
async function openClosable(source: string, options: CatalogOptions): Promise<{ catalog: Catalog; close: () => Promise<void> }> {
  checkCatalogOptions(options);
  let header: readonly string[] | undefined;
  const stream = await openRecords(source, { ...options, onHeader: (columns) => (header = columns) });
  let records = stream.records;
  let headerMapping: HeaderMapping | undefined;
  const auto = options.preset === 'auto';
  let preset = options.preset === undefined || auto ? undefined : presetKind(options.preset);
  let closeRead = async (): Promise<void> => {};
  if (isTabular(stream.format)) {
    const read = await withHeaderRead(records);
    records = read.records;
    closeRead = read.close;
    const columns = header;
    if (auto) {
      preset = recognisePreset(columns ?? []);
      options.onNotice?.(presetChoiceNotice(stream.name, preset, columns === undefined ? 'it has no header' : undefined));
    }
    if (columns !== undefined) {
      try {
        // A header without the preset's columns is refused here, even when no row follows it.
        if (preset !== undefined) requireColumns(preset, stream.name, columns);
        else headerMapping = mapHeaderTelling(columns, options.map ?? {}, stream.name, options);
      } catch (error) {
        await read.close();
        throw error;
      }
    }
  } else if (auto) {
    options.onNotice?.(presetChoiceNotice(stream.name, undefined, `a preset is recognised by a CSV header, and this is ${stream.format}`));
  }
  const catalog = { name: stream.name, drafts: draftsOf(stream, records, options, preset, () => header, headerMapping), progress: () => stream.progress() };
  return {
    catalog,
    close: async () => {
      await closeRead();
      stream.close();
    },
  };
}

/** The path of a source that names a local file (a path or a `file://` URL); undefined for stdin and remote sources. */
function localPath(source: string): string | undefined {
  if (source === '-') return undefined;
  const scheme = schemeOf(source);
  if (scheme === undefined) return source;
  return scheme === 'file' ? fileURLToPath(source) : undefined;
}

/**
 * Several sources: each one that is a local file is opened as the reading will open it, then closed, so that a
 * missing file, content of no known format or a header the mapping or preset cannot read fails the run before
 * anything is sent, not once the sources before it are published. Remote sources are opened once, when reached (a
 * download is not made twice), and so are pipes and devices (`<(cmd)`), whose bytes a first look would consume;
 * what only reading finds (an unclosed quote, a file cut short) still stops the run where it is.
 */
export async function checkSources(sources: readonly string[], options: CatalogOptions): Promise<void> {
  if (sources.length < 2) return;
  const { onNotice: _told, ...quiet } = options;
  // A file named twice (`a.csv ./a.csv`, or through a link or a hard link) would be read twice, each row a
  // duplicate of itself. Files are told apart as the outputs are (device and inode): a hard link has its own realpath.
  const named = new Map<string, string>();
  if (sources.filter((source) => source === '-').length > 1) {
    throw new UsageError('- (stdin) is given twice: its bytes can be read once, so the second would be an empty catalog', { hint: 'name stdin once' });
  }
  for (const source of sources) {
    const path = localPath(source);
    if (path === undefined) continue;
    const file = await fileIdentity(path);
    if (file !== undefined && !file.stats.isFile() && !file.stats.isDirectory()) continue;
    const before = file === undefined ? undefined : named.get(file.identity);
    if (before !== undefined) {
      throw new UsageError(`${redactSourceName(source)} is given twice${before === source ? '' : ` (as ${redactSourceName(before)} and as ${redactSourceName(source)})`}: its rows would be read twice, each one a duplicate of itself`, {
        hint: 'name each catalog file once',
      });
    }
    if (file !== undefined) named.set(file.identity, source);
    const opened = await openClosable(source, quiet);
    await opened.close();
  }
}

/**
 * Several sources read one after the other as one catalog (one run: one index sequence, one duplicate check). The
 * first source is opened now, so that a missing first source fails before anything else; each later one is opened
 * when the reading reaches it, after checkSources has opened and closed the local files among them.
 */
export async function openCatalogs(sources: readonly string[], options: CatalogOptions = {}): Promise<Catalog> {
  const [first, ...rest] = sources;
  if (first === undefined) throw new UsageError('no catalog source given');
  await checkSources(sources, options);
  let current = await openCatalog(first, options);
  let doneBytes = 0;
  let doneTotal: number | undefined = 0;
  let unopened = rest.length;
  async function* drafts(): AsyncIterable<Draft> {
    yield* current.drafts;
    for (const source of rest) {
      unopened--;
      const finished = current.progress();
      // Counted once this one opens: a source that cannot be opened leaves the progress at the one before.
      const next = await openCatalog(source, options);
      doneBytes += finished.bytesRead;
      doneTotal = doneTotal === undefined || finished.totalBytes === undefined ? undefined : doneTotal + finished.totalBytes;
      current = next;
      yield* current.drafts;
    }
  }
  return {
    name: sources.map(redactSourceName).join(', '),
    // One source is read as it is: a generator around it would cost every row one more async step.
    drafts: rest.length === 0 ? current.drafts : drafts(),
    progress(): ReadProgress {
      const now = current.progress();
      // The total is known only once every source has been opened.
      const total = unopened > 0 || doneTotal === undefined || now.totalBytes === undefined ? undefined : doneTotal + now.totalBytes;
      return { bytesRead: doneBytes + now.bytesRead, ...(total === undefined ? {} : { totalBytes: total }) };
    },
    notOpened: () => rest.slice(rest.length - unopened),
  };
}
