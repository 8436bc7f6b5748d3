import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { jsonRecords } from '../../src/catalog/formats/json.js';
import { ndjsonRecords } from '../../src/catalog/formats/ndjson.js';
import { brief, bytes, collect } from '../helpers/sources-collect.js';

function json(text: string | Buffer, jsonPath?: string, chunkSize?: number) {
  return collect(jsonRecords(bytes(text, chunkSize), { source: 'c.json', ...(jsonPath === undefined ? {} : { jsonPath }) })).then(brief);
}

function ndjson(text: string | Buffer, chunkSize?: number) {
  return collect(ndjsonRecords(bytes(text, chunkSize), { source: 'c.ndjson' })).then(brief);
}

describe('json', () => {
  it('reads a top-level array of objects, located by 1-based record index, values as JSON gives them', async () => {
    const text = '[{"sku":"A","images_source":["u1","u2"],"overrides":{"condition":"NEW"},"n":1.5,"ok":true,"no":null},\n {"sku":"B"}]';
    expect(await json(text)).toEqual([
      [1, { sku: 'A', images_source: ['u1', 'u2'], overrides: { condition: 'NEW' }, n: 1.5, ok: true, no: null }],
      [2, { sku: 'B' }],
    ]);
  });

  it('reads the same whatever the chunk boundaries', async () => {
    const text = '\uFEFF [ {"a":"é😎","b":[1,{"c":"\\u00e9"}]} , {"d":-2e3} ]';
    expect(await json(text, undefined, 1)).toEqual([
      [1, { a: 'é😎', b: [1, { c: 'é' }] }],
      [2, { d: -2000 }],
    ]);
  });

  it('reads the array named by the json path, nested or not', async () => {
    expect(await json('{"count":1,"products":[{"sku":"A"}]}', 'products')).toEqual([[1, { sku: 'A' }]]);
    expect(await json('{"data":{"meta":[1],"items":[{"sku":"A"}]}}', 'data.items')).toEqual([[1, { sku: 'A' }]]);
  });

  it("uses a top-level object's single array without a path, skipping other members", async () => {
    const text = '{"meta":{"tags":["x"],"deep":{"a":[1]}},"total":2,"products":[{"sku":"A"},{"sku":"B"}],"next":null}';
    expect(await json(text)).toEqual([
      [1, { sku: 'A' }],
      [2, { sku: 'B' }],
    ]);
  });

  it('reports a second top-level array, after the records of the first', async () => {
    expect(await json('{"products":[{"sku":"A"}],"variants":[{"sku":"B"}]}')).toEqual([
      [1, { sku: 'A' }],
      [2, 'error: the top-level object holds several arrays ("products", "variants"); choose one with --json-path'],
    ]);
  });

  it.each([
    ['{"a":1,"b":{"c":[]}}', undefined, 'the top-level object holds no array of records (if it is one JSON object per line, use --format ndjson)'],
    ['{"items":[]}', 'products', 'the top-level object has no key "products" (--json-path)'],
    ['{"data":{"x":[]}}', 'data.items', '"data" has no key "items" (--json-path)'],
    ['{"products":{"sku":"A"}}', 'products', '"products" is an object, not an array (--json-path)'],
    ['{"data":[]}', 'data.items', '"data" is an array, not an object (--json-path)'],
    ['[{"sku":"A"}]', 'products', 'the top level is an array, so --json-path products does not apply'],
    ['"just a string"', undefined, 'the top level is a string; expected an array of objects, or an object holding one'],
    ['42', undefined, 'the top level is a number; expected an array of objects, or an object holding one'],
  ])('reports a top level that holds no records: %s', async (text, path, message) => {
    expect(await json(text, path)).toEqual([[1, `error: ${message}`]]);
  });

  it('reports truncated JSON after the records before it', async () => {
    expect(await json('[{"sku":"A"},{"sku":"B"},{"sku":"C", "title": "unfinish')).toEqual([
      [1, { sku: 'A' }],
      [2, { sku: 'B' }],
      [3, 'error: the JSON breaks inside record 3: expected a string value'],
    ]);
    expect(await json('[{"sku":"A"}')).toEqual([
      [1, { sku: 'A' }],
      [2, "error: the JSON breaks after record 1: expected ','"],
    ]);
  });

  it('reports broken JSON at the record it breaks in', async () => {
    const items = await json('[{"sku":"A"},{"sku":"B",,}, {"sku":"C"}]');
    expect(items[0]).toEqual([1, { sku: 'A' }]);
    expect(items[1]?.[0]).toBe(2);
    expect(items[1]?.[1]).toMatch(/^error: the JSON breaks inside record 2: /);
    expect(items).toHaveLength(2);
  });

  it('reports an empty file and a break after the array', async () => {
    expect(await json('  ')).toEqual([[1, 'error: the file is empty or not JSON: expected a value']]);
    expect(await json('{"products":[{"sku":"A"}],"x":')).toEqual([
      [1, { sku: 'A' }],
      [1, 'error: the JSON is broken outside the records: expected a value'],
    ]);
  });

  it('reports elements that are not objects and goes on', async () => {
    expect(await json('[{"sku":"A"}, 7, "x", null, [1,[2]], {"sku":"B"}]')).toEqual([
      [1, { sku: 'A' }],
      [2, 'error: record 2 is a number, not an object'],
      [3, 'error: record 3 is a string, not an object'],
      [4, 'error: record 4 is null, not an object'],
      [5, 'error: record 5 is an array, not an object'],
      [6, { sku: 'B' }],
    ]);
  });

  it('keeps a __proto__ key as an own property, as JSON.parse does', async () => {
    const [item] = await json('[{"__proto__":{"polluted":true},"sku":"A"}]');
    const fields = item?.[1] as Record<string, unknown>;
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.keys(fields)).toEqual(['__proto__', 'sku']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports a record holding invalid UTF-8 and reads the others', async () => {
    const text = Buffer.concat([Buffer.from('[{"t":"ok"},{"t":"caf'), Buffer.from([0xe9]), Buffer.from('"},{"t":"é"}]')]);
    expect(await json(text)).toEqual([
      [1, { t: 'ok' }],
      [2, 'error: record 2 is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
      [3, { t: 'é' }],
    ]);
  });

  it('reports a record over 1 MiB and reads the next', async () => {
    const big = 'x'.repeat(300 * 1024);
    const text = `[{"a":"${big}","b":"${big}","c":"${big}","d":"${big}"},{"sku":"B"}]`;
    expect(await json(text)).toEqual([
      [1, 'error: record 1 is larger than 1 MiB'],
      [2, { sku: 'B' }],
    ]);
  });

  it('stops at a single value over 1 MiB without holding it whole (a string that never ends)', async () => {
    let pulled = 0;
    const chunk = 'x'.repeat(64 * 1024);
    const endless = Readable.from(
      (function* () {
        yield '[{"sku":"A"},{"sku":"B","title":"';
        // 64 MiB of one string if read to the end; the reader must give up after about 1 MiB.
        for (let i = 0; i < 1024; i++) {
          pulled++;
          yield chunk;
        }
        yield '"}]';
      })(),
      { objectMode: false },
    );
    const items = brief(await collect(jsonRecords(endless, { source: 'c.json' })));
    expect(items).toEqual([
      [1, { sku: 'A' }],
      [2, 'error: the JSON breaks inside record 2: a single value is longer than 1 MiB; reading stopped here'],
    ]);
    expect(pulled).toBeLessThan(64);
  });

  it('yields records while the document is still arriving', async () => {
    const input = new Readable({ read() {} });
    const records = jsonRecords(input, { source: 'c.json' })[Symbol.asyncIterator]();
    input.push('[{"sku":"A"},');
    expect((await records.next()).value).toEqual({ location: { source: 'c.json', record: 1 }, fields: { sku: 'A' } });
    input.push('{"sku":"B"}]');
    input.push(null);
    expect((await records.next()).value).toEqual({ location: { source: 'c.json', record: 2 }, fields: { sku: 'B' } });
    expect((await records.next()).done).toBe(true);
  });
});

describe('ndjson', () => {
  it('reads one object per line, skipping blank lines, with CRLF, a BOM and no final newline', async () => {
    const text = '\uFEFF{"sku":"A","n":1}\r\n\r\n   \n{"sku":"B","tags":["x"]}\n{"sku":"C"}';
    const expected = [
      [1, { sku: 'A', n: 1 }],
      [4, { sku: 'B', tags: ['x'] }],
      [5, { sku: 'C' }],
    ];
    expect(await ndjson(text)).toEqual(expected);
    expect(await ndjson(text, 1)).toEqual(expected);
  });

  it('reports a bad line, a non-object line and invalid UTF-8 at their lines and goes on', async () => {
    const text = Buffer.concat([
      Buffer.from('{"sku":"A"}\n{"sku": oops}\n[1,2]\n"s"\n{"t":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}\n{"sku":"B"}\n'),
    ]);
    const items = await ndjson(text);
    expect(items.map(([line]) => line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(items[1]?.[1]).toMatch(/^error: the line is not valid JSON: /);
    expect(items.slice(2)).toEqual([
      [3, 'error: the line holds an array, not a JSON object'],
      [4, 'error: the line holds a string, not a JSON object'],
      [5, 'error: the line is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
      [6, { sku: 'B' }],
    ]);
  });

  it('reports a line over 1 MiB without holding it, and goes on', async () => {
    const long = `{"a":"${'x'.repeat(1100 * 1024)}"}`;
    expect(await ndjson(`{"sku":"A"}\n${long}\n{"sku":"B"}\n${long}`)).toEqual([
      [1, { sku: 'A' }],
      [2, 'error: the line is longer than 1 MiB'],
      [3, { sku: 'B' }],
      [4, 'error: the line is longer than 1 MiB'],
    ]);
  });
});
