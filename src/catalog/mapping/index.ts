import type { CatalogNotice, CatalogRecord, Draft } from '../types.js';
import { isRecordError, type RecordError, type RecordItem } from '../types.js';
import { columnsNotRead, createRecordMapper, type MappingOptions } from './map-record.js';
import { exportLookalike, mapHeader, type HeaderMapping } from './header.js';
import { columnsNotReadNotice, FieldCounter, laterKeysNotReadNotice, looseHeaderNotice, proposalNotice } from './notices.js';
import { KeysNotRead } from './keys-not-read.js';
import { proposeMapping } from './propose.js';
import type { FieldMap } from './fields.js';
import { hasBatches } from '../formats/batches.js';

export * from './fields.js';
export { createRecordMapper, columnsNotRead, type MappingOptions } from './map-record.js';
export { checkHeader, mapHeader, quoteName, type HeaderMapping } from './header.js';
export { FieldCounter, type FieldColumns } from './notices.js';
export { proposeMapping, type ProposedColumn } from './propose.js';

/** A record the parser could not read, as a draft: the row is reported, not lost. */
export function unreadableDraft(item: RecordError): Draft {
  return { location: item.location, values: {}, issues: [{ path: '(record)', message: item.error }] };
}

/**
 * Maps a header (see mapHeader: throws a UsageError for a mapping that cannot work) and tells its notices: names
 * matched loosely, columns no field reads.
 */
export function mapHeaderTelling(columns: readonly string[], map: FieldMap, source: string, options: Pick<MappingOptions, 'mapFrom' | 'onNotice'>): HeaderMapping {
  const notify = options.onNotice;
  // Before the header is checked: a header with no sku column gets the whole proposal with its error.
  // A shop system's export is better read by its preset (the header's error says which) than renamed column by column.
  const proposal = notify === undefined || exportLookalike(columns) !== undefined ? undefined : proposalNotice(source, proposeMapping(columns, map), map);
  if (proposal !== undefined) notify?.(proposal);
  const mapping = mapHeader(columns, map, source, options.mapFrom);
  if (notify !== undefined) {
    const loose = looseHeaderNotice(source, mapping.loose);
    if (loose !== undefined) notify(loose);
    const notRead = columnsNotReadNotice(source, columnsNotRead(columns, mapping.map), false);
    if (notRead !== undefined) notify(notRead);
  }
  return mapping;
}

/**
 * Records -> drafts under the default mapping and the renames; one draft per record, in order. With `onNotice`,
 * tells once what is worth saying about the catalog as a whole (see CatalogNotice).
 */
export async function* mapRecords(records: AsyncIterable<RecordItem>, options: MappingOptions = {}): AsyncIterable<Draft> {
  const map = options.map ?? {};
  const notify = options.onNotice;
  const counter = notify === undefined ? undefined : new FieldCounter();
  let source = options.header?.source;
  let header: readonly string[] | undefined;
  let fieldMap = options.headerMapping?.map ?? map;
  let toDraft: ((record: CatalogRecord) => Draft) | undefined;
  const useHeader = (columns: readonly string[], name: string): void => {
    header = columns;
    if (options.headerMapping === undefined) fieldMap = mapHeaderTelling(columns, map, name, options).map;
    toDraft = createRecordMapper({ ...options, map: fieldMap });
  };
  if (!options.fixedColumns) toDraft = createRecordMapper(options);
  else if (options.headerMapping !== undefined && options.header !== undefined) {
    const columns = options.header.columns();
    if (columns !== undefined) useHeader(columns, options.header.source);
  }
  let first = true;
  // JSON records need not share their keys: those no field reads are looked for in every record.
  const keysNotRead = !options.fixedColumns && notify !== undefined ? new KeysNotRead(map) : undefined;
  const draftOf = (item: RecordItem): Draft => {
    if (isRecordError(item)) return unreadableDraft(item);
    if (first) {
      first = false;
      source ??= item.location.source;
      if (toDraft === undefined) useHeader(Object.keys(item.fields), item.location.source);
      else if (keysNotRead !== undefined) {
        const notice = columnsNotReadNotice(source, keysNotRead.add(item.fields, item.location), true);
        if (notice !== undefined) notify?.(notice);
      }
    } else keysNotRead?.add(item.fields, item.location);
    const draft = toDraft!(item);
    counter?.add(draft);
    return draft;
  };
  // In batches where the reader gives them: one await per input chunk instead of one per record.
  if (hasBatches(records)) {
    for await (const batch of records.batches()) for (const item of batch) yield draftOf(item);
  } else {
    for await (const item of records) yield draftOf(item);
  }
  if (options.fixedColumns && toDraft === undefined && options.header !== undefined) {
    // A header with no rows after it is still checked against the mapping.
    const columns = options.header.columns();
    if (columns !== undefined) useHeader(columns, options.header.source);
  }
  if (counter !== undefined && notify !== undefined && source !== undefined) {
    const notices: CatalogNotice[] = counter.notices(source, {
      map: fieldMap,
      ...(options.fixedColumns && header !== undefined ? { header } : {}),
      ...(options.sends === undefined ? {} : { sends: options.sends }),
    });
    for (const notice of notices) notify(notice);
  }
  if (keysNotRead !== undefined && source !== undefined) {
    const { keys, capped } = keysNotRead.later;
    const notice = laterKeysNotReadNotice(source, keys, capped);
    if (notice !== undefined) notify?.(notice);
  }
}
