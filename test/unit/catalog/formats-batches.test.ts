import { describe, expect, it } from 'vitest';
import { csvRecords } from '../../../src/catalog/formats/csv.js';
import { ndjsonRecords } from '../../../src/catalog/formats/ndjson.js';
import { hasBatches } from '../../../src/catalog/formats/batches.js';
import { mapRecords } from '../../../src/catalog/mapping/index.js';
import type { RecordItem } from '../../../src/catalog/read-records.js';
import type { Draft } from '../../../src/catalog/types.js';
import { SourceError } from '../../../src/errors.js';
import { brief, bytes, collect, collectUntilError } from '../../helpers/sources-collect.js';

/** The same records without the batches, as another reader would give them. */
async function* oneByOne(records: AsyncIterable<RecordItem>): AsyncIterable<RecordItem> {
  yield* records;
}

const TEXT = ['sku,title,images_source', ...Array.from({ length: 3000 }, (_, i) => (i === 1500 ? 'bad,"x"y,z' : `S${i},"T, ${i}",https://x/${i}.jpg`)), ''].join('\n');

describe('CSV records in batches', () => {
  it('gives the same records in chunk-sized arrays as one by one', async () => {
    const batches = await collect(csvRecords(bytes(TEXT, 4096), { source: 'c.csv', delimiter: ',' }).batches());
    expect(batches.length).toBeGreaterThan(10);
    expect(batches.every((batch) => batch.length > 0)).toBe(true);
    const single = await collect(csvRecords(bytes(TEXT, 4096), { source: 'c.csv', delimiter: ',' }));
    expect(brief(batches.flat())).toEqual(brief(single));
    expect(brief(single)[1500]).toEqual([1502, 'error: a quote inside the quoted value (column "title") must be doubled ("")']);
  });

  it('ends the batches at the row that stops the reading, then throws, as one by one', async () => {
    const text = `a,b\n1,2\n"open,3\n${'x,y\n'.repeat(10)}`;
    const batches: RecordItem[][] = [];
    const stopped = await (async () => {
      for await (const batch of csvRecords(bytes(text), { source: 'c.csv', delimiter: ',' }).batches()) batches.push(batch);
    })().catch((error: unknown) => error);
    const single = await collectUntilError(csvRecords(bytes(text), { source: 'c.csv', delimiter: ',' }));
    expect(brief(batches.flat())).toEqual(brief(single.items));
    expect(batches.flat().at(-1)).toMatchObject({ error: expect.stringContaining('never closed') as string });
    expect(stopped).toBeInstanceOf(SourceError);
    expect((stopped as Error).message).toBe(single.error?.message);
  });

  it('maps batched records to the same drafts as records read one by one', async () => {
    const records = csvRecords(bytes(TEXT, 1000), { source: 'c.csv', delimiter: ',' });
    expect(hasBatches(records)).toBe(true);
    const batched: Draft[] = await collect(mapRecords(records, { fixedColumns: true }));
    const plain = oneByOne(csvRecords(bytes(TEXT, 1000), { source: 'c.csv', delimiter: ',' }));
    expect(hasBatches(plain)).toBe(false);
    expect(batched).toEqual(await collect(mapRecords(plain, { fixedColumns: true })));
    // The bad row is one draft, and every row after it is read (it swallowed the next row into the bad one).
    expect(batched).toHaveLength(3000);
  });
});

describe('NDJSON records in batches', () => {
  const lines = Array.from({ length: 2000 }, (_, i) => (i === 700 ? '{"sku": ' : i === 900 ? '' : JSON.stringify({ sku: `S${i}`, images_source: [`https://x/${i}.jpg`] })));
  const text = `${lines.join('\n')}\n{"sku": "last"}`;

  it('gives the same records, and the same drafts, in batches as one by one', async () => {
    const batches = await collect(ndjsonRecords(bytes(text, 3000), { source: 'c.ndjson' }).batches());
    expect(batches.length).toBeGreaterThan(10);
    const single = await collect(ndjsonRecords(bytes(text, 3000), { source: 'c.ndjson' }));
    expect(brief(batches.flat())).toEqual(brief(single));
    expect(single).toHaveLength(2000);
    const batched = await collect(mapRecords(ndjsonRecords(bytes(text, 3000), { source: 'c.ndjson' })));
    expect(batched).toEqual(await collect(mapRecords(oneByOne(ndjsonRecords(bytes(text, 3000), { source: 'c.ndjson' })))));
    expect(batched.at(-1)?.values).toEqual({ sku: 'last' });
  });
});
