import { describe, expect, it } from 'vitest';
import { countLineEnds } from '../../../src/catalog/formats/line-ends.js';
import { ndjsonRecords } from '../../../src/catalog/formats/ndjson.js';
import { brief, bytes, collect } from '../../helpers/sources-collect.js';

describe('countLineEnds: CRLF, LF and a bare CR each end one line', () => {
  it.each([
    ['', 0x0a, 0],
    ['a\nb\n', 0x0a, 2],
    ['a\r\nb\r\n', 0x0a, 2],
    ['a\rb\r', 0x0a, 2],
    ['a\r\rb\n\n', 0x0a, 4],
    ['a\n\rb', 0x0a, 2],
    // The CR of a CRLF closed the previous chunk: the LF that opens this one is not a second line end.
    ['\nb\n', 0x0d, 1],
    ['\nb\n', 0x61, 2],
  ])('%j after byte %i: %i', (text, lastBefore, ends) => {
    expect(countLineEnds(Buffer.from(text), lastBefore)).toBe(ends);
  });
});

describe('NDJSON: a bare CR ends a line as LF and CRLF do (it merged two records into one bad line)', () => {
  const text = '{"sku":"A"}\r\n\r\n{"sku":"B"}\n{"sku":"C"}\r{"sku":"D"}\r\r{"sku":"E"}';
  const expected = [
    [1, { sku: 'A' }],
    [3, { sku: 'B' }],
    [4, { sku: 'C' }],
    [5, { sku: 'D' }],
    [7, { sku: 'E' }],
  ];

  it.each([1, 2, 3, 5, 64 * 1024])('read in chunks of %i bytes: every record at its line', async (chunkSize) => {
    expect(brief(await collect(ndjsonRecords(bytes(text, chunkSize), { source: 'c.ndjson' })))).toEqual(expected);
  });

  it('a CR inside a JSON string is not JSON: that line alone is refused, located, and reading goes on', async () => {
    const items = await collect(ndjsonRecords(bytes('{"sku":"A"}\r{"sku":"B\rC"}\n{"sku":"D"}\n'), { source: 'c.ndjson' }));
    expect(items.map((item) => [item.location.line, 'error' in item])).toEqual([
      [1, false],
      [2, true],
      [3, true],
      [4, false],
    ]);
  });
});
