import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateRowCount } from '../../../src/catalog/count-rows.js';
import { tempDir } from '../../helpers/tmp.js';

describe('estimateRowCount', () => {
  const dir = tempDir();
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it.each([
    ['a.csv', 'sku,title\nA,x\nB,y\n', 2],
    ['b.csv', 'sku,title\nA,x\nB,y', 2],
    ['c.csv', 'sku,title\n', 0],
    ['d.csv', '', 0],
    ['e.tsv', 'sku\ttitle\nA\tx\n', 1],
    ['f.ndjson', '{"sku":"A"}\n{"sku":"B"}\n{"sku":"C"}', 3],
    ['cr.csv', 'sku,title\rA,x\rB,y\r', 2],
    ['mixed.csv', 'sku,title\r\nA,x\rB,y\nC,z', 3],
    ['cr.ndjson', '{"sku":"A"}\r{"sku":"B"}\r\n{"sku":"C"}\r', 3],
  ])('%s -> %d', async (name, text, rows) => {
    expect(await estimateRowCount([file(name, text)])).toBe(rows);
  });

  it('sums several files and counts past the 1 MiB read chunk', async () => {
    const big = file('big.csv', `sku\n${'X\n'.repeat(700_000)}`);
    expect(await estimateRowCount([big, file('g.csv', 'sku\nA\n')])).toBe(700_001);
  });

  it('gives up where a count would be costly or wrong', async () => {
    const csv = file('h.csv', 'sku\nA\n');
    expect(await estimateRowCount(['-'])).toBeUndefined();
    expect(await estimateRowCount(['https://example.com/a.csv'])).toBeUndefined();
    expect(await estimateRowCount(['s3://bucket/a.csv'])).toBeUndefined();
    expect(await estimateRowCount([file('i.csv.gz', 'x')])).toBeUndefined();
    expect(await estimateRowCount([file('j.json', '[]')])).toBeUndefined();
    expect(await estimateRowCount([csv], { preset: 'shopify' })).toBeUndefined();
    expect(await estimateRowCount([csv, 'https://example.com/a.csv'])).toBeUndefined();
  });
});
