import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../../src/config/resolve.js';
import { didYouMean } from '../../../src/did-you-mean.js';
import { attributeName } from '../../../src/config/options.js';
import { ConfigError } from '../../../src/errors.js';

type Row = [string, Record<string, unknown>, Record<string, string>, Record<string, unknown>, unknown, string | undefined];

describe('resolveSettings: flag > env > profile > default', () => {
  const rows: Row[] = [
    // key, flags, env, profile, expected value, expected source
    ['marketplace', { marketplace: 'EBAY_DE' }, { LISTINGS_MARKETPLACE: 'EBAY_GB' }, { marketplace: 'EBAY_US' }, 'EBAY_DE', 'flag'],
    ['marketplace', {}, { LISTINGS_MARKETPLACE: 'EBAY_GB' }, { marketplace: 'EBAY_US' }, 'EBAY_GB', 'env'],
    ['marketplace', {}, {}, { marketplace: 'EBAY_US' }, 'EBAY_US', 'profile'],
    ['marketplace', {}, {}, {}, undefined, undefined],
    ['marketplace', {}, { LISTINGS_MARKETPLACE: '' }, { marketplace: 'EBAY_US' }, 'EBAY_US', 'profile'],
    ['concurrency', {}, {}, {}, undefined, undefined],
    ['max_concurrency', {}, {}, {}, undefined, undefined],
    ['max_concurrency', {}, { LISTINGS_MAX_CONCURRENCY: '64' }, { max_concurrency: 128 }, 64, 'env'],
    ['concurrency', {}, { LISTINGS_CONCURRENCY: '32' }, { concurrency: 8 }, 32, 'env'],
    ['concurrency', { concurrency: '4' }, { LISTINGS_CONCURRENCY: '32' }, {}, 4, 'flag'],
    ['shape', {}, {}, {}, 'flat', 'default'],
    ['shape', {}, { LISTINGS_SHAPE: 'WRAPPED' }, {}, 'wrapped', 'env'],
    ['saved_defaults', {}, {}, {}, false, 'default'],
    ['saved_defaults', {}, {}, { saved_defaults: true }, true, 'profile'],
    ['saved_defaults', { saved_defaults: false }, { LISTINGS_SAVED_DEFAULTS: 'yes' }, { saved_defaults: true }, false, 'flag'],
    ['api_key_env', {}, {}, {}, 'LISTINGS_API_KEY', 'default'],
    ['base_url', {}, { LISTINGS_BASE_URL: 'https://eu.example.com' }, { base_url: 'https://api.example.com' }, 'https://eu.example.com', 'env'],
    ['merchant_location_key', {}, {}, { merchant_location_key: 'loc-9' }, 'loc-9', 'profile'],
  ];
  it.each(rows)('%s flags=%j env=%j profile=%j -> %j (%s)', (key, flags, env, profile, value, source) => {
    const resolved = resolveSettings({ flags, env, profile });
    expect((resolved.values as unknown as Record<string, unknown>)[key]).toEqual(value);
    expect(resolved.sources[key as keyof typeof resolved.sources]).toBe(source);
  });
  it.each([
    [{ concurrency: '0' }, {}, {}, /concurrency from the concurrency given for the run: must be a whole number/],
    [{}, { LISTINGS_SHAPE: 'round' }, {}, /shape from LISTINGS_SHAPE: must be one of flat, wrapped/],
    [{}, {}, { base_url: 'not a url' }, /base_url from the profile: must be an absolute URL/],
    [{}, { LISTINGS_SAVED_DEFAULTS: 'maybe' }, {}, /must be true or false/],
  ])('rejects bad values naming where they came from: %j %j %j', (flags, env, profile, message) => {
    expect(() => resolveSettings({ flags, env, profile })).toThrow(ConfigError);
    expect(() => resolveSettings({ flags, env, profile })).toThrow(message);
  });

  it('a bad value given for the run is named as the caller words the setting (the CLI: its flag)', () => {
    let caught: unknown;
    try {
      resolveSettings({ flags: { max_concurrency: 'lots' }, env: {}, profile: {} });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const asFlag = (key: string): string => `--${key.replaceAll('_', '-')}`;
    expect((caught as ConfigError).wordedWith(asFlag).message).toMatch(/^max_concurrency from --max-concurrency: /);
    expect((caught as ConfigError).message).toMatch(/^max_concurrency from the max_concurrency given for the run: /);
  });
});

describe('didYouMean', () => {
  const keys = ['base_url', 'marketplace', 'payment_policy_id', 'return_policy_id', 'concurrency'];
  it.each([
    ['baseurl', 'base_url'],
    ['base-url', 'base_url'],
    ['market_place', 'marketplace'],
    ['payment_policy', 'payment_policy_id'],
    ['zzz', undefined],
  ])('%s -> %s', (input, expected) => {
    expect(didYouMean(input, keys)).toBe(expected);
  });
});

describe('attributeName', () => {
  it.each([
    ['--base-url <url>', 'baseUrl'],
    ['--saved-defaults', 'savedDefaults'],
    ['--no-saved-defaults', 'savedDefaults'],
  ])('%s -> %s', (flag, name) => {
    expect(attributeName(flag)).toBe(name);
  });
});
