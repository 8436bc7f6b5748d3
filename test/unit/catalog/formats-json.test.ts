import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { jsonRecords } from '../../../src/catalog/formats/json.js';
import { ndjsonRecords } from '../../../src/catalog/formats/ndjson.js';
import { SourceError } from '../../../src/errors.js';
import { JsonNumber } from '../../../src/json-number.js';
import { brief, bytes, collect, collectUntilError } from '../../helpers/sources-collect.js';

function json(text: string | Buffer, jsonPath?: string, chunkSize?: number) {
  return collect(jsonRecords(bytes(text, chunkSize), { source: 'c.json', ...(jsonPath === undefined ? {} : { jsonPath }) })).then(brief);
}

/** The items read, then the error that stopped the reading: its class name and message. */
async function jsonStopped(text: string | Buffer, jsonPath?: string, chunkSize?: number) {
  const { items, error } = await collectUntilError(jsonRecords(bytes(text, chunkSize), { source: 'c.json', ...(jsonPath === undefined ? {} : { jsonPath }) }));
  return { items: brief(items), error: error === undefined ? undefined : `${error.constructor.name}: ${error.message}` };
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
      // A number JS would write otherwise is kept as written.
      [2, { d: new JsonNumber('-2e3') }],
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

  it('stops at a second top-level array, after the records of the first: the rest is not read', async () => {
    expect(await jsonStopped('{"products":[{"sku":"A"}],"variants":[{"sku":"B"}]}')).toEqual({
      items: [[1, { sku: 'A' }]],
      error: 'SourceError: c.json#2: not read to its end: the top-level object holds several arrays ("products", "variants")',
    });
  });

  // Before: with a path, reading ended at the first array: the records under the second key were never read nor reported.
  it.each([
    ['{"products":[{"sku":"A"}],"products":[{"sku":"B"}]}', 'products', 'the top-level object holds the key "products" twice'],
    ['{"products":[{"sku":"A"}],"product\\u0073":[{"sku":"B"}]}', 'products', 'the top-level object holds the key "products" twice'],
    ['{"products":[{"sku":"A"}],"meta":{"products":[1]},"products":null}', 'products', 'the top-level object holds the key "products" twice'],
    ['{"data":{"items":[{"sku":"A"}],"next":{"items":[]}},"data":{"items":[{"sku":"B"}]}}', 'data.items', 'the top-level object holds the key "data" twice'],
    ['{"data":{"items":[{"sku":"A"}],"items":[{"sku":"B"}]}}', 'data.items', '"data" holds the key "items" twice'],
    ['{"products":[{"sku":"A"}],"products":[{"sku":"B"}]}', undefined, 'the top-level object holds the key "products" twice'],
    ['{"products":[{"sku":"A"}],"products":{"sku":"B"}}', undefined, 'the top-level object holds the key "products" twice'],
  ])('stops at a key of the records\' path given twice, after the records of the first: %s (path %s)', async (text, path, why) => {
    for (const chunkSize of [undefined, 1]) {
      expect(await jsonStopped(text, path, chunkSize)).toEqual({
        items: [[1, { sku: 'A' }]],
        error: `SourceError: c.json#2: not read to its end: ${why}, so the records under one of them would be lost`,
      });
    }
  });

  it('reads to the end of the document after the records at the path, a key of the path met deeper or elsewhere being no second one', async () => {
    expect(await json('{"data":{"items":[{"sku":"A"}],"x":{"items":[]}},"meta":{"data":{"items":[]}},"items":[]}', 'data.items')).toEqual([[1, { sku: 'A' }]]);
  });

  it.each([
    ['{"a":1,"b":{"c":[]}}', undefined, 'SourceError: c.json: the top-level object holds no array of records'],
    ['{"items":[]}', 'products', 'UsageError: c.json: the top-level object has no key "products" (jsonPath)'],
    ['{"data":{"x":[]}}', 'data.items', 'UsageError: c.json: "data" has no key "items" (jsonPath)'],
    ['{"products":{"sku":"A"}}', 'products', 'UsageError: c.json: "products" is an object, not an array (jsonPath)'],
    ['{"data":[]}', 'data.items', 'UsageError: c.json: "data" is an array, not an object (jsonPath)'],
    ['[{"sku":"A"}]', 'products', 'UsageError: c.json: the top level is an array, so jsonPath products does not apply'],
    ['"just a string"', undefined, 'SourceError: c.json:1: the top level is a string; expected an array of objects, or an object holding one'],
    ['42', undefined, 'SourceError: c.json:1: the top level is a number; expected an array of objects, or an object holding one'],
  ])('throws for a top level that holds no records, with no item (it is not a row): %s', async (text, path, error) => {
    expect(await jsonStopped(text, path)).toEqual({ items: [], error });
  });

  it('stops at truncated JSON after the records before it: the record cut is a row, the error says the file is cut short', async () => {
    for (const chunkSize of [undefined, 1]) {
      expect(await jsonStopped('[{"sku":"A"},{"sku":"B"},{"sku":"C", "title": "unfinish', undefined, chunkSize)).toEqual({
        items: [
          [1, { sku: 'A' }],
          [2, { sku: 'B' }],
          [3, 'error: record 3 is cut off: the file ends inside it'],
        ],
        error: 'SourceError: c.json#3: not read to its end: the file ends inside record 3: it is cut short',
      });
      for (const text of ['[{"sku":"A"}', '[{"sku":"A"},', '[{"sku":"A"},\n ']) {
        expect(await jsonStopped(text, undefined, chunkSize)).toEqual({
          items: [[1, { sku: 'A' }]],
          error: 'SourceError: c.json#2: not read to its end: the file ends after record 1, before the array is closed: it is cut short',
        });
      }
    }
  });

  it('stops at broken JSON, reporting the record it breaks in', async () => {
    expect(await jsonStopped('[{"sku":"A"},{"sku":"B",,}, {"sku":"C"}]')).toEqual({
      items: [
        [1, { sku: 'A' }],
        [2, 'error: the JSON breaks inside record 2: expected an object key'],
      ],
      error: 'SourceError: c.json#2: not read to its end: the JSON breaks inside record 2 (expected an object key)',
    });
  });

  it('throws for an empty file (no item: it holds no row), and for a break after the array', async () => {
    for (const text of ['', '  \n']) expect(await jsonStopped(text)).toEqual({ items: [], error: 'SourceError: c.json:1: the file is empty; expected a JSON array of objects' });
    expect(await jsonStopped('hello')).toEqual({ items: [], error: 'SourceError: c.json:1: the file is not JSON: expected a value' });
    expect(await jsonStopped('{"products":[{"sku":"A"}],"x":')).toEqual({
      items: [[1, { sku: 'A' }]],
      error: 'SourceError: c.json: not read to its end: the file ends outside the records, before the JSON is closed: it is cut short',
    });
  });

  it('reads an empty array, or an object holding one, as no records and no error', async () => {
    expect(await jsonStopped('[]')).toEqual({ items: [], error: undefined });
    expect(await jsonStopped('{"products":[]}')).toEqual({ items: [], error: undefined });
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

  // A U+FFFD written as UTF-8 (or as \\ufffd) is a value; only records whose own bytes are not UTF-8 are refused, at
  // any chunk size (a bad sequence or a U+FFFD cut between chunks), in a value or a key.
  it('refuses only the records holding bytes that are not UTF-8, never a genuine U+FFFD beside them', async () => {
    const text = Buffer.concat([
      Buffer.from('[{"sku":"W1","n":"\uFFFD"},{"sku":"W2","n":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"},{"sku":"W3","n":"\\ufffd\uFFFD"},{"sku":"W4","'),
      Buffer.from([0xf0, 0x9f, 0x98]),
      Buffer.from('":1},{"sku":"W5","n":{"m":["\uFFFD"]}}]'),
    ]);
    const expected = [
      [1, { sku: 'W1', n: '\uFFFD' }],
      [2, 'error: record 2 is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
      [3, { sku: 'W3', n: '\uFFFD\uFFFD' }],
      [4, 'error: record 4 is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
      [5, { sku: 'W5', n: { m: ['\uFFFD'] } }],
    ];
    for (let chunkSize = 1; chunkSize <= text.length; chunkSize++) {
      expect({ chunkSize, items: await json(text, undefined, chunkSize) }).toEqual({ chunkSize, items: expected });
    }
  });

  it('refuses a record whose U+FFFD is a value but whose other value holds bytes that are not UTF-8', async () => {
    const text = Buffer.concat([Buffer.from('[{"a":"\uFFFD","b":"x'), Buffer.from([0xff]), Buffer.from('"},{"a":"\uFFFD"}]')]);
    expect(await json(text)).toEqual([
      [1, 'error: record 1 is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
      [2, { a: '\uFFFD' }],
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
    const { items, error } = await collectUntilError(jsonRecords(endless, { source: 'c.json' }));
    expect(brief(items)).toEqual([
      [1, { sku: 'A' }],
      [2, 'error: the JSON breaks inside record 2: a single value is longer than 1 MiB; reading stopped here'],
    ]);
    expect(error).toBeInstanceOf(SourceError);
    expect(error?.message).toBe('c.json#2: not read to its end: the JSON breaks inside record 2 (a single value is longer than 1 MiB; reading stopped here)');
    expect(pulled).toBeLessThan(64);
  });

  // Before: white space between two values was never counted, so a document followed by spaces without end (a
  // generator, a device) was read for ever: bounded memory, unbounded time, nothing said.
  it.each([
    ['between two records', '[{"sku":"A"},', undefined, 'c.json#2: not read to its end: the JSON breaks after record 1 (over 64 MiB of white space hold no JSON value; reading stopped here)'],
    ['before the records array', '{"products":', 'products', 'c.json: not read to its end: the JSON breaks outside the records (over 64 MiB of white space hold no JSON value; reading stopped here)'],
  ])('white space without end %s: given up after 64 MiB, located', async (_where, start, jsonPath, message) => {
    const spaces = Buffer.alloc(64 * 1024, ' ');
    let pulled = 0;
    const endless = Readable.from(
      (function* () {
        yield Buffer.from(start);
        for (;;) {
          pulled++;
          yield spaces;
        }
      })(),
      { objectMode: false },
    );
    const { error } = await collectUntilError(jsonRecords(endless, { source: 'c.json', ...(jsonPath === undefined ? {} : { jsonPath }) }));
    expect(error).toBeInstanceOf(SourceError);
    expect(error?.message).toBe(message);
    expect(pulled).toBeLessThan(1100);
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

  it('refuses only the lines holding bytes that are not UTF-8, never a genuine U+FFFD beside them', async () => {
    const text = Buffer.concat([Buffer.from('{"n":"\uFFFD"}\n{"n":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n{"n":"\uFFFD"}\n')]);
    for (let chunkSize = 1; chunkSize <= text.length; chunkSize++) {
      expect(await ndjson(text, chunkSize)).toEqual([
        [1, { n: '\uFFFD' }],
        [2, 'error: the line is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
        [3, { n: '\uFFFD' }],
      ]);
    }
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
