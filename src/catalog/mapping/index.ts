import type { Draft } from '../types.js';
import { isRecordError, type RecordError, type RecordItem } from '../read-records.js';
import { createRecordMapper, type MappingOptions } from './map-record.js';
import { checkHeader } from './header.js';

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
  for await (const item of records) {
    if (isRecordError(item)) {
      yield unreadableDraft(item);
      continue;
    }
    if (!checked) {
      checkHeader(Object.keys(item.fields), options.map ?? {}, item.location.source);
      checked = true;
    }
    yield toDraft(item);
  }
}
