import { describe, expect, it } from 'vitest';
import { isCleanFlatRequest, isCleanText, isCleanWrappedRequest } from '../../../src/prepare/clean-request.js';
import { requestSchemaFor } from '../../../src/contract/schemas.js';

/** A small seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const TEXTS: unknown[] = ['x', 'A-1', ' x', 'x ', '\tx', 'x\n', '\u00a0x', 'x\u3000', '\ufeffx', ' ', '', 'a b', 'ü', 'ü ', 'A\u0000B', 'a\tb', 'x\u007f', 'x\u0085', 'x\u2028y', '\u202ex', 7, 0, null, undefined, true, [], {}, ['x']];
const MARKETPLACES: unknown[] = ['EBAY_US', 'EBAY_MOTORS_US', 'ebay', 'ebay_us', 'ebay-motors', 'EBAY', 'EBAY_US ', ' ebay', 'Ebay', '', 7, null, undefined];
const IMAGES: unknown[] = [[], ['https://x/1.jpg'], ['a', 'b'], [''], [' a'], ['a', ' '], 'https://x/1.jpg', [1], [undefined], null, {}];
const OVERRIDES: unknown[] = [
  {},
  { condition: 'NEW' },
  { condition: 'NEW', colour: 'red' },
  { colour: 'red', condition: 'NEW' },
  { colour: 'red' },
  { condition: ' NEW' },
  { condition: 'NE\u0007W' },
  { condition: '' },
  { condition: 5 },
  { condition: undefined },
  { condition: 'NEW', nested: { deep: [1, 2] }, n: null },
  { x: undefined },
  JSON.parse('{"__proto__": {"condition": "NEW"}}'),
  JSON.parse('{"condition": "NEW", "__proto__": 1}'),
  Object.assign(Object.create(null) as object, { condition: 'NEW' }),
  [],
  null,
  'NEW',
];
const FLAT_KEYS = ['images_source', 'sku', 'marketplace', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id', 'overrides'];

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)]!;
}

/** A flat body with each field present or absent, of a good or bad value, in the schema's order or shuffled. */
function flatBody(next: () => number): Record<string, unknown> {
  const good = next() < 0.5;
  const body: Record<string, unknown> = {};
  const keys = next() < 0.85 ? FLAT_KEYS : [...FLAT_KEYS].sort(() => next() - 0.5);
  for (const key of keys) {
    if (next() < (good ? 0.05 : 0.2)) continue;
    if (key === 'images_source') body[key] = good ? pick(next, IMAGES.slice(0, 3)) : pick(next, IMAGES);
    else if (key === 'marketplace') body[key] = good ? pick(next, MARKETPLACES.slice(0, 2)) : pick(next, MARKETPLACES);
    else if (key === 'overrides') body[key] = good ? pick(next, OVERRIDES.slice(0, 3)) : pick(next, OVERRIDES);
    else body[key] = good || next() < 0.7 ? `${key}-${Math.floor(next() * 10)}` : pick(next, TEXTS);
  }
  if (next() < 0.05) body[pick(next, ['title', 'payload', 'extra', '0', '__proto__'])] = 'x';
  return body;
}

function wrappedBody(next: () => number): Record<string, unknown> {
  const payloads: unknown[] = [
    { sku: 'S', title: 'T' },
    { sku: 'S', title: 'T', brand: 'Acme' },
    { title: 'T', sku: 'S' },
    { brand: 'Acme', sku: 'S', title: 'T' },
    { sku: 'S' },
    { sku: ' S', title: 'T' },
    { sku: 'S\u0000', title: 'T' },
    { sku: 'S', title: 'T\u0000' },
    { sku: 'S', title: '' },
    { sku: 'S', title: 'T', x: undefined },
    null,
    'x',
    [],
  ];
  const body: Record<string, unknown> = {};
  const order = next() < 0.85 ? ['marketplace', 'payload'] : ['payload', 'marketplace'];
  for (const key of order) {
    if (next() < 0.1) continue;
    body[key] = key === 'payload' ? pick(next, payloads) : next() < 0.5 ? 'ebay' : pick(next, MARKETPLACES);
  }
  if (next() < 0.05) body.sku = 'x';
  return body;
}

/** The claim each check makes: the schema accepts the body, and its output is the body itself, key order included. */
function expectSchemaOutputsItself(shape: 'flat' | 'wrapped', savedDefaults: boolean, body: unknown): void {
  const parsed = requestSchemaFor(shape, savedDefaults).safeParse(body);
  expect(parsed.success, JSON.stringify(body)).toBe(true);
  expect(parsed.data).toStrictEqual(body);
  expect(JSON.stringify(parsed.data)).toBe(JSON.stringify(body));
}

describe('isCleanText', () => {
  it('is the schema text with nothing to trim', () => {
    const clean = TEXTS.filter((value) => isCleanText(value));
    expect(clean).toEqual(['x', 'A-1', 'a b', 'ü', 'A\u0000B', 'a\tb', 'x\u007f', 'x\u0085', 'x\u2028y', '\u202ex']);
  });
});

describe('isCleanFlatRequest never says clean where the schema would refuse or change the body', () => {
  for (const savedDefaults of [false, true]) {
    it(`random bodies (savedDefaults=${savedDefaults})`, () => {
      const next = random(savedDefaults ? 7 : 11);
      let clean = 0;
      let accepted = 0;
      for (let i = 0; i < 2500; i++) {
        const body = flatBody(next);
        const schemaAccepts = requestSchemaFor('flat', savedDefaults).safeParse(body).success;
        if (schemaAccepts) accepted++;
        const marketplace = typeof body.marketplace === 'string' ? body.marketplace : undefined;
        const known = marketplace !== undefined && /^EBAY_(MOTORS_)?US$/.test(marketplace) ? marketplace : undefined;
        const answer = isCleanFlatRequest(body, savedDefaults);
        expect(isCleanFlatRequest(body, savedDefaults, known), JSON.stringify(body)).toBe(answer);
        if (!answer) continue;
        clean++;
        expectSchemaOutputsItself('flat', savedDefaults, body);
      }
      // Not a vacuous check: most bodies the schema accepts are taken on the fast path.
      expect(accepted).toBeGreaterThan(300);
      expect(clean).toBeGreaterThan(accepted * 0.5);
    });
  }

  it('takes the bodies the preparer builds for a typical catalog', () => {
    const body = {
      images_source: ['https://img.example.com/1.jpg', 'https://img.example.com/2.jpg'],
      sku: 'SKU-1',
      marketplace: 'EBAY_US',
      merchant_location_key: 'wh-1',
      fulfillment_policy_id: 'f-1',
      payment_policy_id: 'p-1',
      return_policy_id: 'r-1',
      overrides: { condition: 'NEW', colour: 'red' },
    };
    for (const savedDefaults of [false, true]) {
      expect(isCleanFlatRequest(body, savedDefaults)).toBe(true);
      expectSchemaOutputsItself('flat', savedDefaults, body);
    }
    expect(isCleanFlatRequest({ sku: 'A', marketplace: 'EBAY_US' }, true)).toBe(true);
    expect(isCleanFlatRequest({ sku: 'A', marketplace: 'EBAY_US' }, false)).toBe(false);
  });

  it('leaves to the schema what it would change: untrimmed text, a condition after other overrides', () => {
    const base = { sku: 'A', marketplace: 'EBAY_US' };
    expect(isCleanFlatRequest({ ...base, sku: 'A ' }, true)).toBe(false);
    expect(isCleanFlatRequest({ ...base, overrides: { colour: 'red', condition: 'NEW' } }, true)).toBe(false);
    expect(isCleanFlatRequest({ marketplace: 'EBAY_US', sku: 'A' }, true)).toBe(false);
  });
});

describe('isCleanWrappedRequest never says clean where the schema would refuse or change the body', () => {
  it('random bodies', () => {
    const next = random(3);
    let clean = 0;
    let accepted = 0;
    for (let i = 0; i < 2000; i++) {
      const body = wrappedBody(next);
      if (requestSchemaFor('wrapped', false).safeParse(body).success) accepted++;
      const known = body.marketplace === 'ebay' ? 'ebay' : undefined;
      const answer = isCleanWrappedRequest(body);
      expect(isCleanWrappedRequest(body, known), JSON.stringify(body)).toBe(answer);
      if (!answer) continue;
      clean++;
      for (const savedDefaults of [false, true]) expectSchemaOutputsItself('wrapped', savedDefaults, body);
    }
    expect(accepted).toBeGreaterThan(400);
    // Payloads in another order, or with an undefined value, are left to the schema.
    expect(clean).toBeGreaterThan(accepted * 0.2);
  });
});
