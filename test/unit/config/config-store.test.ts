import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/store.js';
import { ConfigError } from '../../../src/errors.js';
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

  it('refuses a bad profile name', async () => {
    const store = await ProfileStore.open({ LISTINGS_CONFIG_DIR: tempDir() });
    await expect(store.set('../x', 'marketplace', 'EBAY_US')).rejects.toThrow(/not a valid profile name/);
  });
});
