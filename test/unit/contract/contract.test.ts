import { describe, expect, it } from 'vitest';
import { contractSchemas, requestSchemaFor, skuOf } from '../../../src/contract/schemas.js';
import { toFlatMarketplace, toWrappedMarketplace, isFlatMarketplace, isWrappedMarketplace } from '../../../src/contract/marketplace.js';
import { issuesFromZod } from '../../../src/contract/issues.js';

const { flatRequestSchema, flatRequestWithoutSavedDefaultsSchema, listingResponseSchema, wrappedRequestSchema } = contractSchemas();

const flat = {
  images_source: ['https://img.example.com/1.jpg'],
  sku: 'SKU-1',
  marketplace: 'EBAY_US',
  merchant_location_key: 'loc-1',
  fulfillment_policy_id: 'f-1',
  payment_policy_id: 'p-1',
  return_policy_id: 'r-1',
  overrides: { condition: 'NEW' },
};

describe('flat request', () => {
  it('accepts the documented example', () => {
    expect(flatRequestWithoutSavedDefaultsSchema.parse(flat)).toEqual(flat);
  });
  it('requires the location key and the policy ids without saved defaults (rule 2)', () => {
    const { merchant_location_key: _a, fulfillment_policy_id: _b, payment_policy_id: _c, return_policy_id: _d, ...rest } = flat;
    const result = flatRequestWithoutSavedDefaultsSchema.safeParse(rest);
    expect(result.success).toBe(false);
    const paths = issuesFromZod(result.error!).map((i) => i.path).sort();
    expect(paths).toEqual(['fulfillment_policy_id', 'merchant_location_key', 'payment_policy_id', 'return_policy_id']);
    expect(issuesFromZod(result.error!).every((i) => i.message === 'is required')).toBe(true);
  });
  it('accepts them missing with saved defaults (rule 1)', () => {
    expect(flatRequestSchema.safeParse({ sku: 'A', marketplace: 'EBAY_DE' }).success).toBe(true);
  });
  it('keeps unknown override keys but rejects unknown top-level fields', () => {
    expect(flatRequestSchema.parse({ ...flat, overrides: { condition: 'USED', price: '3' } }).overrides).toEqual({ condition: 'USED', price: '3' });
    const result = flatRequestSchema.safeParse({ ...flat, colour: 'red' });
    expect(result.success).toBe(false);
    expect(issuesFromZod(result.error!)).toEqual([{ path: 'colour', message: 'is not a field of the request' }]);
  });
  it('wants the upper-case region-suffixed marketplace', () => {
    expect(flatRequestSchema.safeParse({ ...flat, marketplace: 'ebay' }).success).toBe(false);
    expect(flatRequestSchema.safeParse({ ...flat, marketplace: 'EBAY' }).success).toBe(false);
  });
  it('locates list items in issue paths', () => {
    const result = flatRequestSchema.safeParse({ ...flat, images_source: ['https://a', ''] });
    expect(issuesFromZod(result.error!)[0]?.path).toBe('images_source[1]');
  });
});

describe('identifiers refuse control characters (they were sent: "AB\\u0000CD" as a SKU)', () => {
  const cases: [string, string, string][] = [
    ['sku', 'AB\u0000CD', 'holds a control character (U+0000) at character 3'],
    ['sku', 'AB\t', 'holds a control character (U+0009) at character 3'],
    ['merchant_location_key', 'loc\u007f', 'holds a control character (U+007F) at character 4'],
    ['fulfillment_policy_id', 'f\u0085', 'holds a control character (U+0085) at character 2'],
    ['payment_policy_id', 'p\u2028', 'holds a line or paragraph separator (U+2028) at character 2'],
    ['return_policy_id', '\u202er-1', 'holds a direction control (U+202E) at character 1'],
    ['marketplace', 'EBAY_US\u001b', 'holds a control character (U+001B) at character 8'],
    ['overrides.condition', 'NEW\r', 'holds a control character (U+000D) at character 4'],
  ];
  it.each(cases)('%s %j', (path, value, message) => {
    const body: Record<string, unknown> = path === 'overrides.condition' ? { ...flat, overrides: { condition: value } } : { ...flat, [path]: value };
    const result = flatRequestWithoutSavedDefaultsSchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(issuesFromZod(result.error!)).toEqual([{ path, message: `${message}; an identifier cannot hold control characters, line breaks or direction controls` }]);
  });
  it('in the wrapped shape too, where a title (free text) may hold them', () => {
    const result = wrappedRequestSchema.safeParse({ marketplace: 'ebay', payload: { sku: 'A\u0001', title: 'T' } });
    expect(issuesFromZod(result.error!).map((issue) => issue.path)).toEqual(['payload.sku']);
    expect(wrappedRequestSchema.safeParse({ marketplace: 'ebay', payload: { sku: 'A', title: 'Line 1\nLine 2\u0000' } }).success).toBe(true);
  });
});

describe('identifiers refuse characters that take no room and lone surrogates (SKU-1\\u200b was sent as another listing that shows as SKU-1)', () => {
  const invisible = 'an identifier cannot hold characters that take no room, as two that look the same would differ';
  const half = 'it is half of a character, which no UTF-8 text holds';
  const cases: [string, string, string][] = [
    ['sku', 'SKU-1\u200b', `holds an invisible character (U+200B) at character 6; ${invisible}`],
    ['sku', 'SKU\ufeff-1', `holds an invisible character (U+FEFF) at character 4; ${invisible}`],
    ['sku', 'SKU\u00ad1', `holds an invisible character (U+00AD) at character 4; ${invisible}`],
    ['merchant_location_key', 'loc\u2060-1', `holds an invisible character (U+2060) at character 4; ${invisible}`],
    ['sku', 'A\ud800', `holds a lone surrogate (U+D800) at character 2; ${half}`],
    ['sku', '\udc00A', `holds a lone surrogate (U+DC00) at character 1; ${half}`],
  ];
  it.each(cases)('%s %j', (path, value, message) => {
    const result = flatRequestWithoutSavedDefaultsSchema.safeParse({ ...flat, [path]: value });
    expect(result.success).toBe(false);
    expect(issuesFromZod(result.error!)).toEqual([{ path, message }]);
  });
  it('keeps a surrogate pair, zero-width joiners, and any of them in a title', () => {
    expect(flatRequestWithoutSavedDefaultsSchema.safeParse({ ...flat, sku: 'MUG-\ud83d\ude00' }).success).toBe(true);
    expect(flatRequestWithoutSavedDefaultsSchema.safeParse({ ...flat, sku: 'ک\u200cتاب' }).success).toBe(true);
    expect(wrappedRequestSchema.safeParse({ marketplace: 'ebay', payload: { sku: 'A', title: 'T\u200b\ufeff\ud800' } }).success).toBe(true);
  });
});

describe('wrapped request', () => {
  it('accepts marketplace plus payload with sku and title, keeping other payload keys', () => {
    const body = { marketplace: 'ebay', payload: { sku: 'S', title: 'T', colour: 'red' } };
    expect(wrappedRequestSchema.parse(body)).toEqual(body);
    expect(skuOf(body)).toBe('S');
  });
  it('wants the lower-case marketplace without region, and a title', () => {
    expect(wrappedRequestSchema.safeParse({ marketplace: 'EBAY_US', payload: { sku: 'S', title: 'T' } }).success).toBe(false);
    expect(wrappedRequestSchema.safeParse({ marketplace: 'ebay', payload: { sku: 'S' } }).success).toBe(false);
  });
  it('is chosen by requestSchemaFor', () => {
    expect(requestSchemaFor('wrapped', false)).toBe(wrappedRequestSchema);
    expect(requestSchemaFor('flat', true)).toBe(flatRequestSchema);
    expect(requestSchemaFor('flat', false)).toBe(flatRequestWithoutSavedDefaultsSchema);
  });
  it('are built once: every call gives the same objects', () => {
    expect(contractSchemas()).toBe(contractSchemas());
  });
});

describe('response', () => {
  it('requires the four shown fields and keeps extra ones', () => {
    const body = { sku: 'S', status: 'ready', title: 'T', item_specifics: ['Brand'], listing_id: 'L-1', fees: { total: 1 } };
    expect(listingResponseSchema.parse(body)).toEqual(body);
    expect(listingResponseSchema.safeParse({ sku: 'S', status: 'ready', title: 'T' }).success).toBe(false);
  });
});

describe('marketplace forms', () => {
  it.each([
    ['EBAY_US', 'ebay'],
    ['EBAY_MOTORS_US', 'ebay_motors'],
    ['ebay', 'ebay'],
    ['Ebay_us', undefined],
    ['', undefined],
  ])('%s -> wrapped %s', (input, expected) => {
    expect(toWrappedMarketplace(input)).toBe(expected);
  });
  it.each([
    ['ebay', 'US', 'EBAY_US'],
    ['ebay', 'de', 'EBAY_DE'],
    ['ebay', undefined, undefined],
    ['EBAY_GB', undefined, 'EBAY_GB'],
    ['ebay', 'USA', undefined],
  ])('%s + %s -> flat %s', (input, region, expected) => {
    expect(toFlatMarketplace(input, region)).toBe(expected);
  });
  it('recognises each form', () => {
    expect(isFlatMarketplace('EBAY_US')).toBe(true);
    expect(isWrappedMarketplace('EBAY_US')).toBe(false);
    expect(isWrappedMarketplace('ebay')).toBe(true);
  });
});
