import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { openRecords, type RecordStream } from '../../../src/catalog/read-records.js';
import { SourceError, UsageError } from '../../../src/errors.js';
import { brief, collect } from '../../helpers/sources-collect.js';

let dir: string;
const CSV = 'sku,title\nA,Alpha\nB,Beta\n';
const ROWS = [
  [2, { sku: 'A', title: 'Alpha' }],
  [3, { sku: 'B', title: 'Beta' }],
];

async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

async function readAll(stream: RecordStream) {
  return brief(await collect(stream.records));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'listings-sources-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('local files', () => {
  it('reads a CSV file, names records by its path, and reports progress against its size', async () => {
    const path = await file('catalog.csv', CSV);
    const stream = await openRecords(path, {});
    expect(stream).toMatchObject({ name: path, format: 'csv' });
    expect(stream.progress()).toEqual({ bytesRead: expect.any(Number) as number, totalBytes: CSV.length });
    const items = await collect(stream.records);
    expect(items[0]?.location).toEqual({ source: path, line: 2 });
    expect(brief(items)).toEqual(ROWS);
    expect(stream.progress()).toEqual({ bytesRead: CSV.length, totalBytes: CSV.length });
  });

  it.each([
    ['c.tsv', 'sku\ttitle\nA\tAlpha\nB\tBeta\n', 'tsv'],
    ['c.txt', 'sku;title\nA;Alpha\nB;Beta\n', 'csv'],
    ['c.json', '[{"sku":"A","title":"Alpha"},{"sku":"B","title":"Beta"}]', 'json'],
    ['c.jsonl', '{"sku":"A","title":"Alpha"}\n{"sku":"B","title":"Beta"}\n', 'ndjson'],
    ['noext', '{"sku":"A","title":"Alpha"}\n{"sku":"B","title":"Beta"}\n', 'ndjson'],
    ['data.dat', '\n[\n {"sku":"A","title":"Alpha"},\n {"sku":"B","title":"Beta"}\n]\n', 'json'],
    ['catalog', '{\n "products": [{"sku":"A","title":"Alpha"},{"sku":"B","title":"Beta"}]\n}', 'json'],
  ])('tells the format of %s by its extension or content (%s)', async (name, content, format) => {
    const stream = await openRecords(await file(name, content), {});
    expect(stream.format).toBe(format);
    expect((await readAll(stream)).map(([, fields]) => fields)).toEqual(ROWS.map(([, fields]) => fields));
  });

  it('lets the format option override the extension, and the delimiter option the sniffing', async () => {
    const path = await file('c.csv', '{"sku":"A"}\n');
    expect((await openRecords(path, { format: 'ndjson' })).format).toBe('ndjson');
    const semi = await file('semi.csv', 'sku;title;x,y\nA;Alpha;1,2\n');
    expect(await readAll(await openRecords(semi, { delimiter: ',' }))).toEqual([[2, { 'sku;title;x': 'A;Alpha;1', y: '2' }]]);
    expect(await readAll(await openRecords(semi, {}))).toEqual([[2, { sku: 'A', title: 'Alpha', 'x,y': '1,2' }]]);
  });

  it('reads a JSON object at the json path', async () => {
    const path = await file('wrapped.json', '{"data":{"products":[{"sku":"A"}]}}');
    expect(await readAll(await openRecords(path, { jsonPath: 'data.products' }))).toEqual([[1, { sku: 'A' }]]);
  });

  it('throws SourceError naming a missing file or a directory', async () => {
    const missing = join(dir, 'missing.csv');
    await expect(openRecords(missing, {})).rejects.toThrow(new SourceError({ source: missing }, 'no such file'));
    await expect(openRecords(dir, {})).rejects.toThrow(SourceError);
    await expect(openRecords(dir, {})).rejects.toThrow(`${dir}: is a directory, not a file`);
  });

  it('stops with an AbortError when the signal aborts', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `S${i},Title ${i}`).join('\n');
    const controller = new AbortController();
    const stream = await openRecords(await file('abort.csv', `sku,title\n${rows}\n`), { signal: controller.signal });
    let read = 0;
    const failure = await (async () => {
      try {
        for await (const _ of stream.records) if (++read === 10) controller.abort();
      } catch (error) {
        return error as Error;
      }
      return undefined;
    })();
    expect(failure?.name).toBe('AbortError');
    expect(read).toBeLessThan(20_000);
    controller.abort();
    await expect(openRecords(await file('again.csv', CSV), { signal: controller.signal })).rejects.toThrow(expect.objectContaining({ name: 'AbortError' }) as Error);
  });

  it('accepts file:// URLs', async () => {
    const path = await file('url.csv', CSV);
    expect(await readAll(await openRecords(`file://${path}`, {}))).toEqual(ROWS);
  });

  it('refuses binary content it cannot tell the format of, and unknown schemes', async () => {
    const path = await file('sheet', Buffer.from('PK\u0003\u0004\u0000\u0000\u0000binary', 'latin1'));
    await expect(openRecords(path, {})).rejects.toThrow(UsageError);
    await expect(openRecords(path, {})).rejects.toThrow(/cannot tell the format/);
    await expect(openRecords('ftp://example.com/c.csv', {})).rejects.toThrow(UsageError);
    await expect(openRecords(await file('x.csv', CSV), { delimiter: '"' })).rejects.toThrow(UsageError);
  });
});

describe('gzip', () => {
  it('decompresses a .gz file, telling the format from the name before .gz; progress counts compressed bytes', async () => {
    const compressed = gzipSync(CSV);
    const path = await file('catalog.csv.gz', compressed);
    const stream = await openRecords(path, {});
    expect(stream.format).toBe('csv');
    expect(await readAll(stream)).toEqual(ROWS);
    expect(stream.progress()).toEqual({ bytesRead: compressed.length, totalBytes: (await stat(path)).size });
  });

  it('decompresses gzip recognised by its magic bytes, whatever the name, then sniffs the content', async () => {
    expect(await readAll(await openRecords(await file('plain.csv', gzipSync(CSV)), {}))).toEqual(ROWS);
    const ndjson = await openRecords(await file('export.bin', gzipSync('{"sku":"A"}\n{"sku":"B"}\n')), {});
    expect(ndjson.format).toBe('ndjson');
    expect(await readAll(ndjson)).toEqual([
      [1, { sku: 'A' }],
      [2, { sku: 'B' }],
    ]);
  });

  it('reads a .gz name holding plain text as plain text', async () => {
    expect(await readAll(await openRecords(await file('mislabelled.csv.gz', CSV), {}))).toEqual(ROWS);
  });

  it('reads the records before damaged gzip data, then throws SourceError naming the source and the line where reading stopped', async () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => `S${i},Title ${i}`).join('\n');
    const compressed = gzipSync(`sku,title\n${rows}\n`);
    const path = await file('cut.csv.gz', compressed.subarray(0, Math.floor(compressed.length / 2)));
    const stream = await openRecords(path, {});
    let read = 0;
    const failure = await (async () => {
      try {
        for await (const _ of stream.records) read++;
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(read).toBeGreaterThan(100);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as Error).message).toMatch(new RegExp(`^${path}:\\d+: not read to its end: the compressed data ends early`));
  });
});

describe('stdin', () => {
  async function withStdin<T>(input: Readable & { isTTY?: boolean }, action: () => Promise<T>): Promise<T> {
    const original = Object.getOwnPropertyDescriptor(process, 'stdin')!;
    Object.defineProperty(process, 'stdin', { configurable: true, get: () => input });
    try {
      return await action();
    } finally {
      Object.defineProperty(process, 'stdin', original);
    }
  }

  it('reads - from stdin, sniffing the format, named stdin', async () => {
    const stream = await withStdin(Readable.from([Buffer.from(gzipSync('[{"sku":"A"}]'))], { objectMode: false }), () => openRecords('-', {}));
    expect(stream).toMatchObject({ name: 'stdin', format: 'json' });
    const items = await collect(stream.records);
    expect(items).toEqual([{ location: { source: 'stdin', record: 1 }, fields: { sku: 'A' } }]);
    expect(stream.progress().totalBytes).toBeUndefined();
  });

  it('takes --format for stdin, and refuses a terminal', async () => {
    const csv = await withStdin(Readable.from([Buffer.from('{"a"|1}\n{"b"|2}\n')], { objectMode: false }), () => openRecords('-', { format: 'csv', delimiter: '|' }));
    await expect(readAll(csv)).rejects.toThrow(new SourceError({ source: 'stdin', line: 1 }, 'the header row: a quote inside the unquoted value (column 1): quote the whole value and double the quote ("")'));
    const tty = Object.assign(new Readable({ read() {} }), { isTTY: true });
    await expect(withStdin(tty, () => openRecords('-', {}))).rejects.toThrow(UsageError);
  });
});
