import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { normalizeDelimiter, sniffDelimiter } from '../../../src/catalog/formats/delimiter.js';
import { formatFromContentType, formatFromName, sniffFormat } from '../../../src/catalog/formats/detect.js';
import { peek } from '../../../src/catalog/formats/peek.js';
import { UsageError } from '../../../src/errors.js';

describe('format from name, Content-Type and content', () => {
  it.each([
    ['catalog.csv', 'csv'],
    ['CATALOG.CSV', 'csv'],
    ['catalog.csv.gz', 'csv'],
    ['dir.v2/catalog.tsv', 'tsv'],
    ['catalog.tab', 'tsv'],
    ['catalog.json.gz', 'json'],
    ['catalog.ndjson', 'ndjson'],
    ['catalog.jsonl.GZ', 'ndjson'],
    ['/exports/products', undefined],
    ['dir.csv/catalog', undefined],
    ['catalog.gz', undefined],
    ['catalog.xlsx', undefined],
    ['', undefined],
  ])('%s -> %s', (name, format) => {
    expect(formatFromName(name)).toBe(format);
  });

  it.each([
    ['text/csv; charset=utf-8', 'csv'],
    ['Application/JSON', 'json'],
    ['text/tab-separated-values', 'tsv'],
    ['application/x-ndjson', 'ndjson'],
    ['application/jsonl', 'ndjson'],
    ['text/plain', undefined],
    ['application/octet-stream', undefined],
    [undefined, undefined],
  ])('Content-Type %s -> %s', (contentType, format) => {
    expect(formatFromContentType(contentType)).toBe(format);
  });

  it.each([
    ['[{"a":1}]', true, 'json'],
    ['\uFEFF\n  [', false, 'json'],
    ['{"a":1}\n{"a":2}\n', true, 'ndjson'],
    ['{"a":1}', true, 'ndjson'],
    ['{\n  "products": [', false, 'json'],
    ['{"products": [{"a":1},', false, 'more'],
    ['{"products": [{"a":1}]}', true, 'ndjson'],
    ['{"a":1} trailing\n', true, 'json'],
    ['sku,title\nA,B\n', true, 'csv'],
    ['', true, 'csv'],
    ['PK\u0003\u0004\u0000\u0000', false, 'binary'],
  ])('sniffs %j (ended: %s) as %s', (head, ended, format) => {
    expect(sniffFormat(Buffer.from(head), ended)).toBe(format);
  });

});

describe('delimiter', () => {
  it.each([
    ['sku,title,price\n', ','],
    ['sku;title;price\n', ';'],
    ['sku\ttitle\tprice\n', '\t'],
    ['sku|title|price\n', '|'],
    ['"a;b;c;d",x,y\n', ','],
    ['sku;"a,b";c\n', ';'],
    ['sku,title\na;b;c;d;e\n', ','],
    ['\uFEFFa;b\n', ';'],
    ['sku\nA\n', ','],
    ['a,b;c|d\n', ','],
    ['"a"";b;c;d",x,y\n', ','],
    // A quote inside a value opens nothing: the tabs after `5"` count (TSV titles carry inch marks).
    ['title 5"\tsku\tmarketplace\n', '\t'],
    ['sku\t12" pan, 5" lid\tx\n', '\t'],
  ])('sniffs %j as %j', (head, delimiter) => {
    expect(sniffDelimiter(Buffer.from(head))).toBe(delimiter);
  });

  it('takes a given delimiter, with names for tab, and refuses one that cannot work', () => {
    expect(normalizeDelimiter(';')).toBe(';');
    expect(normalizeDelimiter('tab')).toBe('\t');
    expect(normalizeDelimiter('\\t')).toBe('\t');
    for (const bad of ['', '"', '\n']) expect(() => normalizeDelimiter(bad)).toThrow(UsageError);
  });
});

describe('peek', () => {
  async function text(stream: Readable): Promise<string> {
    let out = '';
    for await (const chunk of stream) out += String(chunk);
    return out;
  }

  it('looks at the first bytes and leaves them in the stream', async () => {
    const source = Readable.from([Buffer.from('abc'), Buffer.from('def'), Buffer.from('ghi')], { objectMode: false });
    const peeked = await peek(source, 4);
    expect(peeked.head.toString()).toBe('abcdef');
    expect(peeked.ended).toBe(false);
    expect(await text(peeked.stream)).toBe('abcdefghi');
  });

  it('hands on a short stream whole', async () => {
    const peeked = await peek(Readable.from([Buffer.from('ab')], { objectMode: false }), 10);
    expect(peeked).toMatchObject({ ended: true });
    expect(peeked.head.toString()).toBe('ab');
    expect(await text(peeked.stream)).toBe('ab');
    const empty = await peek(Readable.from([], { objectMode: false }), 10);
    expect(empty.head.length).toBe(0);
    expect(await text(empty.stream)).toBe('');
  });

  it('passes on the stream error', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('disk gone'));
      },
    });
    await expect(peek(failing, 2)).rejects.toThrow('disk gone');
  });
});
