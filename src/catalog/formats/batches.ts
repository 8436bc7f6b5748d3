import type { RecordItem } from '../read-records.js';

/** Records that can also be read a chunk's worth at a time: one await per chunk of input rather than per record. */
export interface BatchedRecords extends AsyncIterable<RecordItem> {
  /** The same records, in arrays of those one input chunk gave (each array is new; none is empty). */
  batches(): AsyncIterable<RecordItem[]>;
}

/** True for a record stream that can be read in batches (a CSV source read on its own). */
export function hasBatches(records: AsyncIterable<RecordItem>): records is BatchedRecords {
  return typeof (records as Partial<BatchedRecords>).batches === 'function';
}
