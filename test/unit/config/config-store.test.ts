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
    ['[1, 2]', /does not hold an object/],
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
