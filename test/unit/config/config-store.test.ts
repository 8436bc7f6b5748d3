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
    [`{"profiles": {"default": {"x": ${'['.repeat(70)}${']'.repeat(70)}}}}`, /nests objects and arrays deeper than 64 levels/],
  ])('a damaged file (%s) is a ConfigError, not a silent empty config', async (text, message) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), text);
    await expect(ProfileStore.open({ LISTINGS_CONFIG_DIR: dir })).rejects.toThrow(ConfigError);
    await expect(ProfileStore.open({ LISTINGS_CONFIG_DIR: dir })).rejects.toThrow(message);
  });

  it('refuses a bad profile name', async () => {
    const store = await ProfileStore.open({ LISTINGS_CONFIG_DIR: tempDir() });
    await expect(store.set('../x', 'marketplace', 'EBAY_US')).rejects.toThrow(/not a valid profile name/);
  });
});
