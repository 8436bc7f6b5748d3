import type { RecordItem } from '../types.js';

/** Records that can also be read a chunk's worth at a time: one await per chunk of input rather than per record. */
export interface BatchedRecords extends AsyncIterable<RecordItem> {
  /** The same records, in arrays of those one input chunk gave (each array is new; none is empty). */
  batches(): AsyncIterable<RecordItem[]>;
}

/** True for a record stream that can be read in batches (a CSV source read on its own). */
export function hasBatches(records: AsyncIterable<RecordItem>): records is BatchedRecords {
  return typeof (records as Partial<BatchedRecords>).batches === 'function';
}

/** Records read once, one by one or in batches, from a generator of batches (made when first asked for). */
export function batchedRecords(make: () => AsyncGenerator<RecordItem[]>): BatchedRecords {
  let batches: AsyncGenerator<RecordItem[]> | undefined;
  let records: AsyncGenerator<RecordItem> | undefined;
  const batched = (): AsyncGenerator<RecordItem[]> => (batches ??= make());
  return {
    batches: batched,
    [Symbol.asyncIterator]: () => (records ??= flatten(batched())),
  };
}

async function* flatten(batches: AsyncIterable<RecordItem[]>): AsyncGenerator<RecordItem> {
  for await (const batch of batches) yield* batch;
}
