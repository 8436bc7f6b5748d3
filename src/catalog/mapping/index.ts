import type { Draft } from '../types.js';
import { isRecordError, type RecordError, type RecordItem } from '../read-records.js';
import { createRecordMapper, type MappingOptions } from './map-record.js';
import { checkHeader } from './header.js';
import { hasBatches } from '../formats/batches.js';

export * from './fields.js';
export { createRecordMapper, type MappingOptions } from './map-record.js';
export { checkHeader } from './header.js';

/** A record the parser could not read, as a draft: the row is reported, not lost. */
export function unreadableDraft(item: RecordError): Draft {
  return { location: item.location, values: {}, issues: [{ path: '(record)', message: item.error }] };
}

/** Records -> drafts under the default mapping and the renames; one draft per record, in order. */
export async function* mapRecords(records: AsyncIterable<RecordItem>, options: MappingOptions = {}): AsyncIterable<Draft> {
  const toDraft = createRecordMapper(options);
  let checked = !options.fixedColumns;
  const draftOf = (item: RecordItem): Draft => {
    if (isRecordError(item)) return unreadableDraft(item);
    if (!checked) {
      checkHeader(Object.keys(item.fields), options.map ?? {}, item.location.source);
      checked = true;
    }
    return toDraft(item);
  };
  // In batches where the reader gives them: one await per input chunk instead of one per record.
  if (hasBatches(records)) {
    for await (const batch of records.batches()) for (const item of batch) yield draftOf(item);
  } else {
    for await (const item of records) yield draftOf(item);
  }
  const columns = checked ? undefined : options.header?.columns();
  if (columns !== undefined && options.header !== undefined) checkHeader(columns, options.map ?? {}, options.header.source);
}
