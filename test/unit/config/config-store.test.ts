import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/store.js';
import { ConfigError } from '../../../src/errors.js';
import { OPTIONS, PER_MARKETPLACE_KEYS } from '../../../src/config/options.js';
import { tempDir } from '../../helpers/tmp.js';

describe('ProfileStore', () => {
  it('reads nothing when there is no file, and writes 0600 through conf', async () => {
    const dir = tempDir();
    const store = await ProfileStore.open({ LISTINGS_CONFIG_DIR: dir });
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(store.profileNames()).toEqual(['default']);
    await store.set('eu', 'marketplace', 'EBAY_DE');
    await store.use('eu');
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    const again = await ProfileStore.open({ LISTINGS_CONFIG_DIR: dir });
    expect(again.activeProfile(undefined, {})).toBe('eu');
    expect(again.values('eu')).toEqual({ marketplace: 'EBAY_DE' });
    expect(again.activeProfile(undefined, { LISTINGS_PROFILE: 'default' })).toBe('default');
    expect(await again.unset('eu', 'marketplace')).toBe(true);
    expect(await again.unset('eu', 'marketplace')).toBe(false);
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({ profiles: { eu: {} }, current_profile: 'eu' });
  });

  it.each([
    ['{ not json', /is not valid JSON/],
    ['[1, 2]', /it holds an array, not an object/],
    // A hand-edited file of another shape: read as nothing (or [4] as 4) before, and `config set` crashed or lost
    // the value written.
    ['{"profiles": []}', /profiles is an array, not an object of profiles/],
    ['{"profiles": "x"}', /profiles is a string, not an object of profiles/],
    ['{"profiles": {"default": [1]}}', /profiles\["default"\] is an array, not an object of settings/],
    ['{"profiles": {"default": {"concurrency": [4]}}}', /profiles\["default"\]\.concurrency is an array, not a string, number or boolean/],
    ['{"profiles": {"default": {"base_url": null}}}', /profiles\["default"\]\.base_url is null/],
    ['{"profiles": {"default": {"marketplaces": "EBAY_GB"}}}', /marketplaces is a string, not an object of marketplace sections/],
    ['{"profiles": {"default": {"marketplaces": {"EBAY_GB": {"condition": {}}}}}}', /marketplaces\["EBAY_GB"\]\.condition is an object, not a string, number or boolean/],
    ['{"current_profile": null}', /current_profile is null, not a profile name/],
    // A number or true/false for a text setting was sent as its String(): 12345678901234567890 rounded by JSON.parse
    // to 12345678901234567000, 1e3 as 1000, true as the API key "true".
    ['{"profiles": {"default": {"fulfillment_policy_id": 12345678901234567890}}}', /profiles\["default"\]\.fulfillment_policy_id is a number, not text: write it in quotes/],
    ['{"profiles": {"default": {"marketplaces": {"EBAY_GB": {"payment_policy_id": 1e3}}}}}', /marketplaces\["EBAY_GB"\]\.payment_policy_id is a number, not text.*read as "1000"/],
    ['{"profiles": {"default": {"api_key": true}}}', /profiles\["default"\]\.api_key is a boolean, not text/],
    ['{"profiles": {"default": {"saved_defaults": 1}}}', /saved_defaults is a number: write true or false/],
    // A misspelt key or section was ignored in silence: the value written by hand was never used, and nothing said so.
    ['{"profiles": {"default": {"base_ur": "https://a.example"}}}', /profiles\["default"\]\.base_ur is not a setting, so it would be ignored: did you mean base_url\?/],
    ['{"profiles": {"default": {"marketplaces": {"EBAY_GB": {"fulfilment_policy_id": "F"}}}}}', /marketplaces\["EBAY_GB"\]\.fulfilment_policy_id is not a setting a marketplace has of its own.*did you mean fulfillment_policy_id\?/],
    ['{"profiles": {"default": {"marketplaces": {"EBAY_GB": {"base_url": "https://a.example"}}}}}', /marketplaces\["EBAY_GB"\]\.base_url is not a setting a marketplace has of its own, so it would be ignored \(a section takes merchant_location_key/],
    ['{"profiles": {"default": {"marketplaces": {"ebay_gb": {"condition": "NEW"}}}}}', /marketplaces\["ebay_gb"\] would be ignored: .*name it "EBAY_GB"/],
    ['{"profiles": {"default": {"marketplaces": {"EBAY GB": {"condition": "NEW"}}}}}', /marketplaces\["EBAY GB"\] is not a marketplace id/],
    ['{"current_profle": "prod", "profiles": {"prod": {}}}', /current_profle is not a key of this file, so it would be ignored: did you mean current_profile\?/],
    // A key is quoted: a line break in it cannot forge a line of the message.
    ['{"profiles": {"default": {"x\\nforged": "1"}}}', /profiles\["default"\]\["x\\nforged"\] is not a setting/],
    [`{"profiles": {"default": {"x": ${'['.repeat(70)}${']'.repeat(70)}}}}`, /nests objects and arrays deeper than 64 levels/],
  ])('a damaged file (%s) is a ConfigError, not a silent empty config', async (text, message) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), text);
    await expect(ProfileStore.open({ LISTINGS_CONFIG_DIR: dir })).rejects.toThrow(ConfigError);
    await expect(ProfileStore.open({ LISTINGS_CONFIG_DIR: dir })).rejects.toThrow(message);
  });

  it('keeps a whole number for a number setting and true/false for a switch, as written', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), '{"profiles": {"default": {"concurrency": 8, "saved_defaults": true, "payment_policy_id": "6196932000"}}}');
    await expect(ProfileStore.open({ LISTINGS_CONFIG_DIR: dir })).resolves.toBeDefined();
  });

  it('reads every key and section this tool writes, and conf\'s own bookkeeping', async () => {
    const dir = tempDir();
    const store = await ProfileStore.open({ LISTINGS_CONFIG_DIR: dir });
    for (const option of OPTIONS) await store.set('default', option.key, option.key === 'concurrency' || option.key === 'max_concurrency' ? 4 : option.key === 'saved_defaults' ? true : 'x');
    for (const key of PER_MARKETPLACE_KEYS) await store.setSection('default', 'ebay-gb', key, 'X');
    await store.use('default');
    const written = JSON.parse(readFileSync(store.path, 'utf8')) as Record<string, unknown>;
    writeFileSync(store.path, JSON.stringify({ ...written, __internal__: { migrations: {} } }));
    const again = await ProfileStore.open({ LISTINGS_CONFIG_DIR: dir });
    expect(again.sections('default')).toEqual({ 'EBAY-GB': Object.fromEntries(PER_MARKETPLACE_KEYS.map((key) => [key, 'X'])) });
  });

  it('refuses a bad profile name', async () => {
    const store = await ProfileStore.open({ LISTINGS_CONFIG_DIR: tempDir() });
    await expect(store.set('../x', 'marketplace', 'EBAY_US')).rejects.toThrow(/not a valid profile name/);
  });
});
