import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExactNumberText, JsonNumber, numberFromText, stringifyJson } from '../../../src/json-number.js';
import { JsonDepthError, MAX_JSON_DEPTH, parseJsonText, scanJsonText } from '../../../src/json-text.js';
import { jsonRecords } from '../../../src/catalog/formats/json.js';
import { ndjsonLine } from '../../../src/catalog/formats/ndjson.js';
import { createRecordMapper } from '../../../src/catalog/mapping/index.js';
import { createMessageMapper } from '../../../src/stream/message-draft.js';
import { createPreparer } from '../../../src/prepare/index.js';
import { bytes, collect } from '../../helpers/sources-collect.js';

const nested = (depth: number, inner = '1'): string => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

/** The texts a JS number would change, and how JSON.parse + JSON.stringify writes each. */
const CHANGED = [
  ['9007199254740993', '9007199254740992'],
  ['1e400', 'null'],
  ['-1e400', 'null'],
  ['-0', '0'],
  ['1.0', '1'],
  ['1E2', '100'],
  ['0.1000000000000000055511151231257827', '0.1'],
  ['12.50', '12.5'],
  ['0.0000001', '1e-7'],
  ['123456789012345678', '123456789012345680'],
] as const;

describe('isExactNumberText', () => {
  it.each(CHANGED)('%s is not written back by a JS number', (text, written) => {
    expect(JSON.stringify(JSON.parse(text))).toBe(written);
    expect(isExactNumberText(text)).toBe(false);
  });

  it.each(['0', '-1', '7', '123456789012345', '12.99', '-0.5', '0.000001', '1e+21', '100000000000000000000', '5e-324'])('%s is', (text) => {
    expect(isExactNumberText(text)).toBe(true);
  });

  it('agrees with String(Number(text)) === text on any JSON number text, also inside a longer text', () => {
    const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
    const numberText = fc
      .tuple(fc.boolean(), fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 22)).map(([a, b]) => a + b)), fc.option(digits(1, 20)), fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3))))
      .map(([minus, int, fraction, exponent]) => `${minus ? '-' : ''}${int}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : exponent.join('')}`);
    fc.assert(
      fc.property(numberText, (text) => {
        expect(isExactNumberText(text)).toBe(String(Number(text)) === text);
        expect(isExactNumberText(`[${text},`, 1, text.length + 1)).toBe(String(Number(text)) === text);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('JsonNumber and stringifyJson', () => {
  it('keeps the text of a number a JS number would change, and makes a plain number of the others', () => {
    expect(numberFromText('12.5')).toBe(12.5);
    for (const [text] of CHANGED) expect(numberFromText(text)).toEqual(new JsonNumber(text));
  });

  it('writes each JsonNumber as its text, wherever it is, with or without indentation', () => {
    const value = { sku: 'A', overrides: { price: new JsonNumber('9007199254740993'), list: [new JsonNumber('1.0'), 2, new JsonNumber('-0')] } };
    expect(stringifyJson(value)).toBe('{"sku":"A","overrides":{"price":9007199254740993,"list":[1.0,2,-0]}}');
    expect(stringifyJson(value, 2)).toContain('"price": 9007199254740993,');
    expect(stringifyJson({ a: 1 })).toBe('{"a":1}');
  });

  it('cannot be fooled by a string that looks like its placeholder, and outside it writes the exact text as a string', () => {
    const inside = JSON.stringify({ n: new JsonNumber('1.0') });
    expect(inside).toBe('{"n":"1.0"}');
    expect(stringifyJson({ s: 'jsonnumber-0', t: '"0"', n: new JsonNumber('1E2') })).toBe('{"s":"jsonnumber-0","t":"\\"0\\"","n":1E2}');
  });

  it('starts afresh after a JSON.stringify that threw, and within a toJSON that calls it', () => {
    expect(() => stringifyJson({ n: new JsonNumber('1.0'), b: 1n })).toThrow(TypeError);
    expect(stringifyJson({ n: new JsonNumber('2.0') })).toBe('{"n":2.0}');
    const inner = { toJSON: () => stringifyJson({ m: new JsonNumber('3.0') }) };
    expect(stringifyJson({ a: new JsonNumber('1.0'), inner, b: new JsonNumber('4.0') })).toBe('{"a":1.0,"inner":"{\\"m\\":3.0}","b":4.0}');
  });

  it('refuses text that is not a JSON number', () => {
    for (const text of ['', '01', '1.', '.5', 'NaN', 'Infinity', '1e', '+1', '1 ', '0x10']) expect(() => new JsonNumber(text)).toThrow(TypeError);
  });
});

describe('scanJsonText and parseJsonText', () => {
  it('measures depth without recursion, strings (with escaped quotes and brackets) not counted', () => {
    expect(scanJsonText('1').depth).toBe(0);
    expect(scanJsonText('{"a":{"b":[1]}}').depth).toBe(3);
    expect(scanJsonText('{"a":"[[[{\\"\\\\","b":[]}').depth).toBe(2);
    expect(scanJsonText(nested(1_000_000)).depth).toBe(1_000_000);
  });

  it(`refuses JSON deeper than ${MAX_JSON_DEPTH} levels with a JsonDepthError, and reads ${MAX_JSON_DEPTH}`, () => {
    expect(parseJsonText(nested(MAX_JSON_DEPTH))).toBeDefined();
    expect(() => parseJsonText(nested(MAX_JSON_DEPTH + 1))).toThrow(new JsonDepthError(MAX_JSON_DEPTH + 1));
    expect(() => parseJsonText(nested(100_000))).toThrow(`nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels (100000)`);
    expect(() => parseJsonText('{"a":')).toThrow(SyntaxError);
  });

  it('parses as JSON.parse does, with only the numbers a JS number would change kept as JsonNumbers', () => {
    const text = ` {"b": 1, "2": [true, false, null, "x\\"y\\u00e9", -0.5], "__proto__": {"p": 1.0}, "b": 9007199254740993, "s": "1.0 \\\\", "e": {}} `;
    const value = parseJsonText(text) as Record<string, unknown>;
    const plain = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(Object.keys(plain));
    expect(value).toEqual({ ...plain, b: new JsonNumber('9007199254740993'), ['__proto__']: { p: new JsonNumber('1.0') } });
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(stringifyJson(value)).toBe('{"2":[true,false,null,"x\\"yé",-0.5],"b":9007199254740993,"__proto__":{"p":1.0},"s":"1.0 \\\\","e":{}}');
  });
});

describe('catalog readers, mapping and stream messages', () => {
  const numbers = '{"sku":9007199254740993,"title":1.0,"overrides":{"price":9007199254740993,"quantity":1e400,"a":-0,"b":1E2,"c":0.1000000000000000055511151231257827,"d":12.5}}';

  it('the NDJSON and JSON readers keep the number texts, and the mapping takes a SKU from its text', async () => {
    const line = ndjsonLine(Buffer.from(numbers), 1, 'c.ndjson');
    const [record] = await collect(jsonRecords(bytes(`[${numbers}]`), { source: 'c.json' }));
    for (const item of [line, record]) {
      expect(item && 'fields' in item).toBe(true);
      const draft = createRecordMapper()(item as { location: { source: string }; fields: Record<string, unknown> });
      expect(draft.issues).toEqual([]);
      expect(draft.values.sku).toBe('9007199254740993');
      expect(draft.values.title).toBe('1.0');
      expect(stringifyJson(draft.values.overrides)).toBe('{"price":9007199254740993,"quantity":1e400,"a":-0,"b":1E2,"c":0.1000000000000000055511151231257827,"d":12.5}');
    }
  });

  it('a number kept as written where text is needed is told as a number', () => {
    const prepare = createPreparer({ shape: 'flat', saved_defaults: true, marketplace: 'EBAY_US' });
    const row = prepare(createRecordMapper()({ location: { source: 'c.ndjson', line: 1 }, fields: parseJsonText('{"sku":"A","overrides":{"condition":1.0}}') as Record<string, unknown> }));
    expect(row.kind === 'invalid' && row.issues).toEqual([{ path: 'overrides.condition', message: 'Invalid input: expected string, received number' }]);
  });

  it('a record nested too deep is an error item at its place, and the records after it are read', async () => {
    const deep = `{"sku":"D","x":${nested(5_000)}}`;
    expect(ndjsonLine(Buffer.from(deep), 4, 'c.ndjson')).toEqual({ location: { source: 'c.ndjson', line: 4 }, error: `the line nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels (5001)` });
    // The record object is level 1: 1 + 63 arrays is the deepest read.
    const limit = `{"x":${nested(MAX_JSON_DEPTH - 1)}}`;
    const items = await collect(jsonRecords(bytes(`[${deep},{"sku":"B"},${`{"x":${nested(MAX_JSON_DEPTH)}}`},${limit}]`, 4096), { source: 'c.json' }));
    expect(items).toEqual([
      { location: { source: 'c.json', record: 1 }, error: `record 1 nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels` },
      { location: { source: 'c.json', record: 2 }, fields: { sku: 'B' } },
      { location: { source: 'c.json', record: 3 }, error: `record 3 nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels` },
      { location: { source: 'c.json', record: 4 }, fields: JSON.parse(limit) as unknown },
    ]);
  });

  it('a stream message keeps the number texts; one nested too deep is unreadable, with the reason', async () => {
    const mapper = createMessageMapper({});
    const message = (value: string) => ({ topic: 't', partition: 0, offset: 7, key: null, value: Buffer.from(value), timestamp: 0 });
    const draft = await mapper(message(numbers));
    expect(draft.values.sku).toBe('9007199254740993');
    expect(stringifyJson(draft.values.overrides)).toContain('"price":9007199254740993,"quantity":1e400');
    const deep = await mapper(message(`{"sku":"D","x":${nested(5_000)}}`));
    expect(deep.issues).toEqual([{ path: '(record)', message: `the message value is JSON that nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels (5001)` }]);
  });

  it('a number kept as written is never taken for an object: a bare 1e400 as a record, as overrides or as a message', async () => {
    expect(ndjsonLine(Buffer.from('1e400'), 1, 'c.ndjson')).toEqual({ location: { source: 'c.ndjson', line: 1 }, error: 'the line holds a number, not a JSON object' });
    const [record] = await collect(jsonRecords(bytes('[9007199254740993]'), { source: 'c.json' }));
    expect(record).toEqual({ location: { source: 'c.json', record: 1 }, error: 'record 1 is a number, not an object' });
    // Its own `text` property was read as an override key: {"text":"1e400"} was sent.
    const draft = createRecordMapper()({ location: { source: 'c.ndjson', line: 1 }, fields: parseJsonText('{"sku":"A","overrides":1e400}') as Record<string, unknown> });
    expect(draft.values.overrides).toBeUndefined();
    expect(draft.issues.map((issue) => issue.path)).toEqual(['overrides']);
    const message = await createMessageMapper({})({ topic: 't', partition: 0, offset: 1, key: null, value: Buffer.from('9007199254740993'), timestamp: 0 });
    expect(message.issues).toEqual([{ path: '(record)', message: 'the message value is JSON but not an object (a number)' }]);
  });
});
