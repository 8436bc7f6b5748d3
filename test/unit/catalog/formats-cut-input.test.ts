import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { csvRecords } from '../../../src/catalog/formats/csv.js';
import { jsonRecords } from '../../../src/catalog/formats/json.js';
import { endsInsideJson, ndjsonRecords } from '../../../src/catalog/formats/ndjson.js';
import { peek } from '../../../src/catalog/formats/peek.js';
import { isRecordError, openRecords, type RecordItem } from '../../../src/catalog/read-records.js';
import { SourceError } from '../../../src/errors.js';
import { brief, bytes, collectUntilError, stopped } from '../../helpers/sources-collect.js';
import { tempDir } from '../../helpers/tmp.js';

/** Input that gives `text` and then fails, as a reset connection or a file that went away does. */
function failingAfter(text: string): Readable {
  return Readable.from(
    (function* () {
      yield Buffer.from(text);
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    })(),
    { objectMode: false },
  );
}

describe('NDJSON: a torn last line is a cut input', () => {
  it('reports a last line that has no line break and ends inside its JSON as cut off, then stops at its line', async () => {
    for (const chunkSize of [undefined, 5]) {
      expect(await stopped(ndjsonRecords(bytes('{"sku":"A"}\n{"sku":"B"}\n{"sku":"C","tit', chunkSize), { source: 'c.ndjson' }))).toEqual({
        items: [
          [1, { sku: 'A' }],
          [2, { sku: 'B' }],
          [3, 'error: the line is cut off: the file ends inside its JSON'],
        ],
        error: 'c.ndjson:3: not read to its end: the file ends inside the JSON of this line, which has no line break: the file is cut short',
      });
    }
  });

  it('keeps a bad line that is whole (or followed by a line break) a bad row, and reads on', async () => {
    const whole = await stopped(ndjsonRecords(bytes('{"sku":"A"}\n{"sku":"B"}}'), { source: 'c.ndjson' }));
    expect(whole.error).toBeUndefined();
    expect(whole.items[1]?.[1]).toMatch(/^error: the line is not valid JSON: /);
    const middle = await stopped(ndjsonRecords(bytes('{"sku":"A"\n{"sku":"B"}\n'), { source: 'c.ndjson' }));
    expect(middle.error).toBeUndefined();
    expect(middle.items.map(([line, value]) => [line, typeof value])).toEqual([
      [1, 'string'],
      [2, 'object'],
    ]);
  });

  it.each([
    ['{"a":1', true],
    ['{"a":"x', true],
    ['{"a":"\\"}', true],
    ['{"a":[1,2', true],
    ['{"a":1}', false],
    ['{"a":1}}', false],
    ['{"a":"{["}', false],
    ['hello', false],
  ])('tells JSON that ends inside a value it opened: %s', (text, inside) => {
    expect(endsInsideJson(Buffer.from(text))).toBe(inside);
  });
});

describe('CSV: a quote left open', () => {
  async function lines(text: string) {
    const { items, error } = await collectUntilError(csvRecords(bytes(text, 4), { source: 'c.csv', delimiter: ',' }));
    return { items: items.map((item) => `${item.location.line}${isRecordError(item) ? ` ${item.error}` : ''}`), error: error?.message };
  }

  it('that a later quote closes: the row is located where the quote opens, naming the lines read into it', async () => {
    for (const eol of ['\n', '\r\n']) {
      const text = ['sku,title', 'A,one', 'B,"two', 'C,three', 'D,"four, 4"', 'E,five', ''].join(eol);
      expect(await lines(text)).toEqual({
        items: ['2', '3 a quoted value (column "title") opens in this row and runs on to line 5, where a quote inside it is not doubled: lines 3-5 are read as this one row (is a quote on line 3 left open?)', '6'],
        error: undefined,
      });
    }
  });

  it('to the end of the file: located where the quote opens, whatever the line ends', async () => {
    for (const text of ['h,t\nA,x\nB,"open\nC,y\nD,z\n', 'h,t\nA,x\nB,"open\nC,y\nD,z', 'h,t\r\nA,x\r\nB,"open\r\nC,y\r\nD,z\r\n', 'h,t\nA,"multi\r\nline"\nB,"open\r\n']) {
      const { items, error } = await lines(text);
      const line = text.includes('multi') ? 4 : 3;
      expect(items.at(-1)).toMatch(new RegExp(`^${line} a quoted value \\(column "t"\\) opens in this row and is never closed`));
      expect(error).toBe(`c.csv:${line}: not read to its end: a quoted value (column "t") opens on this line and is never closed, so the rest of the file is taken as part of it`);
    }
  });
});

describe('input that fails part-way', () => {
  it('CSV: the rows read are all given, the row being read is cut off, and the error names its line', async () => {
    expect(await stopped(csvRecords(failingAfter('sku,title\nA,x\nB,y'), { source: 'c.csv', delimiter: ',' }))).toEqual({
      items: [
        [2, { sku: 'A', title: 'x' }],
        [3, 'error: the row is cut off: reading stopped inside it (reading failed: read ECONNRESET)'],
      ],
      error: 'c.csv:3: not read to its end: reading failed: read ECONNRESET',
    });
  });

  it('CSV: a failure inside a quoted value cuts off its row; one inside the header reports no row', async () => {
    expect(await stopped(csvRecords(failingAfter('sku,title\nA,x\nB,"multi\nline'), { source: 'c.csv', delimiter: ',' }))).toEqual({
      items: [
        [2, { sku: 'A', title: 'x' }],
        [3, 'error: the row is cut off: reading stopped inside it (reading failed: read ECONNRESET)'],
      ],
      error: 'c.csv:3: not read to its end: reading failed: read ECONNRESET',
    });
    expect(await stopped(csvRecords(failingAfter('sku,ti'), { source: 'c.csv', delimiter: ',' }))).toEqual({
      items: [],
      error: 'c.csv:1: not read to its end: reading failed: read ECONNRESET',
    });
  });

  it('CSV: a failure between rows invents no row', async () => {
    expect(await stopped(csvRecords(failingAfter('sku,title\r\nA,x\r\n'), { source: 'c.csv', delimiter: ',' }))).toEqual({
      items: [[2, { sku: 'A', title: 'x' }]],
      error: 'c.csv:3: not read to its end: reading failed: read ECONNRESET',
    });
  });

  it('NDJSON and JSON: the same', async () => {
    expect(await stopped(ndjsonRecords(failingAfter('{"sku":"A"}\n{"sku":'), { source: 'c.ndjson' }))).toEqual({
      items: [
        [1, { sku: 'A' }],
        [2, 'error: the line is cut off: reading stopped inside it (reading failed: read ECONNRESET)'],
      ],
      error: 'c.ndjson:2: not read to its end: reading failed: read ECONNRESET',
    });
    expect(await stopped(ndjsonRecords(failingAfter('{"sku":"A"}\n'), { source: 'c.ndjson' }))).toEqual({
      items: [[1, { sku: 'A' }]],
      error: 'c.ndjson:2: not read to its end: reading failed: read ECONNRESET',
    });
    expect(await stopped(jsonRecords(failingAfter('[{"sku":"A"},{"sku":'), { source: 'c.json' }))).toEqual({
      items: [
        [1, { sku: 'A' }],
        [2, 'error: record 2 is cut off: reading stopped inside it (reading failed: read ECONNRESET)'],
      ],
      error: 'c.json#2: not read to its end: reading failed: read ECONNRESET',
    });
    expect(await stopped(jsonRecords(failingAfter('[{"sku":"A"},'), { source: 'c.json' }))).toEqual({
      items: [[1, { sku: 'A' }]],
      error: 'c.json#2: not read to its end: reading failed: read ECONNRESET',
    });
  });

  it('peek hands on the bytes read before a failure, then the failure', async () => {
    const peeked = await peek(failingAfter('abc'), 1024);
    expect(peeked.head.toString()).toBe('abc');
    expect(peeked.ended).toBe(false);
    const chunks: Buffer[] = [];
    await expect(
      (async () => {
        for await (const chunk of peeked.stream as AsyncIterable<Buffer>) chunks.push(chunk);
      })(),
    ).rejects.toThrow('ECONNRESET');
    expect(Buffer.concat(chunks).toString()).toBe('abc');
  });
});

describe('a cut gzip file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listings-cut-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The lines that decompress from the cut file: how many are whole, and whether a part of one follows. */
  function readable(cut: Buffer): { whole: number; partial: boolean } {
    // Z_SYNC_FLUSH: the output of input that ends early, without an error (as the Node.js zlib docs suggest).
    const lines = gunzipSync(cut, { finishFlush: constants.Z_SYNC_FLUSH }).toString().split('\n');
    return { whole: lines.length - 1, partial: lines.at(-1) !== '' };
  }

  async function readCut(name: string, consumerDelayMs: number): Promise<{ items: RecordItem[]; error: Error | undefined }> {
    const stream = await openRecords(join(dir, name), {});
    const items: RecordItem[] = [];
    try {
      for await (const item of stream.records) {
        items.push(item);
        // A reader that falls behind (a run that sends as it reads) must lose nothing the decompressor gave.
        if (consumerDelayMs > 0 && items.length % 200 === 0) await new Promise((resolve) => setTimeout(resolve, consumerDelayMs));
      }
    } catch (error) {
      return { items, error: error as Error };
    }
    return { items, error: undefined };
  }

  it.each([
    ['csv', (i: number) => `S${i},Title ${i} ${(i * 7919) % 104729}`, 'sku,title\n'],
    ['ndjson', (i: number) => JSON.stringify({ sku: `S${i}`, title: `Title ${i} ${(i * 7919) % 104729}` }), ''],
  ])('%s: every whole row before the cut is read, however slow the reader; the part of a row after them is cut off', async (format, row, header) => {
    const text = header + Array.from({ length: 20_000 }, (_, i) => row(i)).join('\n') + '\n';
    const compressed = gzipSync(text);
    const cut = compressed.subarray(0, Math.floor(compressed.length * 0.6));
    await writeFile(join(dir, `cut.${format}.gz`), cut);
    const { whole, partial } = readable(cut);
    const rowsBefore = whole - (header === '' ? 0 : 1);
    for (const delay of [0, 5]) {
      const { items, error } = await readCut(`cut.${format}.gz`, delay);
      const good = items.filter((item) => !isRecordError(item));
      expect(good).toHaveLength(rowsBefore);
      const cutLine = whole + 1;
      if (partial) {
        expect(items).toHaveLength(rowsBefore + 1);
        expect(items.at(-1)).toMatchObject({ location: { line: cutLine }, error: expect.stringMatching(/is cut off: reading stopped inside it \(the compressed data ends early/) as string });
      } else {
        expect(items).toHaveLength(rowsBefore);
      }
      expect(error).toBeInstanceOf(SourceError);
      expect(error?.message).toBe(`${join(dir, `cut.${format}.gz`)}:${cutLine}: not read to its end: the compressed data ends early (unexpected end of file): the file is cut short`);
    }
  });

  it('reads the rows of a cut gzip file shorter than the bytes looked at to tell the format', async () => {
    const compressed = gzipSync('sku,title\nA,x\nB,y\nC,z\n');
    await writeFile(join(dir, 'small.csv.gz'), compressed.subarray(0, compressed.length - 6));
    const { items, error } = await readCut('small.csv.gz', 0);
    expect(brief(items)).toEqual([
      [2, { sku: 'A', title: 'x' }],
      [3, { sku: 'B', title: 'y' }],
      [4, { sku: 'C', title: 'z' }],
    ]);
    expect(error?.message).toMatch(/small\.csv\.gz:5: not read to its end: the compressed data ends early/);
  });
});

describe('gzip data with bytes after its end', () => {
  const dir = tempDir();

  async function readFile(name: string, content: Buffer): Promise<{ items: RecordItem[]; error: Error | undefined }> {
    const path = join(dir, name);
    await writeFile(path, content);
    return collectUntilError((await openRecords(path, {})).records);
  }

  const GARBAGE = Buffer.from('GARBAGE after the end');

  it.each([
    ['a small file (its rows fewer than the bytes looked at to tell the format)', 5],
    ['a large one (zlib dropped the output of its last write: the last rows were never read)', 50_000],
  ])('%s: every row is read, then the error names the file, the line after the last row and the byte where the other bytes start', async (_name, count) => {
    const text = `sku,title\n${Array.from({ length: count }, (_, i) => `S${i},Title ${i} ${(i * 7919) % 104729}`).join('\n')}\n`;
    const compressed = gzipSync(text);
    const { items, error } = await readFile(`trailing-${count}.csv.gz`, Buffer.concat([compressed, GARBAGE]));
    expect(items.filter((item) => isRecordError(item))).toEqual([]);
    expect(items).toHaveLength(count);
    expect(error).toBeInstanceOf(SourceError);
    expect(error?.message).toBe(
      `${join(dir, `trailing-${count}.csv.gz`)}:${count + 2}: not read to its end: the gzip data ends at byte ${compressed.length.toLocaleString('en-US')} of the file, and bytes that are not gzip data follow it (a file joined to it, or damage)`,
    );
  });

  it('reads members joined one after another, and zero bytes of padding after the last, as before', async () => {
    const joined = Buffer.concat([gzipSync('sku,title\nA,x\n'), gzipSync('B,y\n'), Buffer.alloc(512)]);
    const { items, error } = await readFile('joined.csv.gz', joined);
    expect(error).toBeUndefined();
    expect(brief(items)).toEqual([
      [2, { sku: 'A', title: 'x' }],
      [3, { sku: 'B', title: 'y' }],
    ]);
    const padded = await readFile('padded-then-garbage.csv.gz', Buffer.concat([gzipSync('sku\nA\n'), Buffer.alloc(3), GARBAGE]));
    expect(padded.error?.message).toMatch(/:3: not read to its end: the gzip data ends at byte \d+ of the file, and bytes that are not gzip data follow it/);
  });

  it('checks each member against its trailer: a wrong CRC-32 or length is damaged data, after the rows read', async () => {
    for (const [at, check] of [
      [8, 'data'],
      [4, 'length'],
    ] as const) {
      const compressed = Buffer.from(gzipSync('sku\nA\nB\n'));
      compressed[compressed.length - at]! ^= 1;
      const { items, error } = await readFile(`bad-${check}.csv.gz`, compressed);
      expect(items).toHaveLength(2);
      expect(error?.message).toMatch(new RegExp(`:4: not read to its end: the compressed data is damaged \\(incorrect ${check} check\\)$`));
    }
  });
});
