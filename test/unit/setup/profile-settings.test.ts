import { describe, expect, it } from 'vitest';
import { cliName } from '../../../src/cli/setting-flags.js';
import { OPTION_BY_KEY } from '../../../src/config/options.js';
import { ConfigError, UsageError } from '../../../src/errors.js';
import { optionFor, sectionOf, settingRows, settingsJson, shownValue, storedValue, useProfile } from '../../../src/setup/profile-settings.js';
import { loadSettings } from '../../../src/setup/settings.js';
import { ProfileStore } from '../../../src/config/store.js';
import { tempDir } from '../../helpers/tmp.js';

const option = (key: string) => OPTION_BY_KEY.get(key)!;

describe('one setting of a profile, as listings config reads and writes it', () => {
  it('an unknown key is a UsageError with a guess and the keys', () => {
    expect(() => optionFor('base_ur')).toThrow(UsageError);
    expect(() => optionFor('base_ur')).toThrow('unknown config key "base_ur"; did you mean base_url?');
  });

  it("a marketplace's section: by its section name, only for a key a marketplace may have of its own", () => {
    expect(sectionOf(option('condition'), undefined)).toBeUndefined();
    expect(sectionOf(option('fulfillment_policy_id'), 'ebay_gb')).toEqual({ name: 'EBAY_GB', key: 'fulfillment_policy_id' });
    expect(() => sectionOf(option('base_url'), 'EBAY_GB')).toThrow('base_url is one setting for every marketplace: it cannot be set per marketplace');
    const error = (() => {
      try {
        sectionOf(option('condition'), 'not a marketplace');
      } catch (thrown) {
        return thrown as ConfigError;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/^marketplace: /);
    expect(error.wordedWith(cliName).message).toMatch(/^--marketplace: /);
  });

  it('a value is stored as its setting parses it; a base URL the runs would refuse is refused now', () => {
    expect(storedValue(option('concurrency'), '8', false)).toBe(8);
    expect(() => storedValue(option('concurrency'), 'many', false)).toThrow(/^concurrency: /);
    expect(() => storedValue(option('base_url'), 'http://api.example.com', false)).toThrow(ConfigError);
    expect(storedValue(option('base_url'), 'http://api.example.com', true)).toBe('http://api.example.com');
    expect(shownValue(option('api_key'), 'sk_live_1234567890')).not.toContain('1234567890');
  });

  it("lists every setting with its source, then a marketplace's own values; as JSON with each marketplace's", async () => {
    const env = { LISTINGS_CONFIG_DIR: tempDir(), LISTINGS_EBAY_GB_CONDITION: 'USED_GOOD' };
    const loaded = await loadSettings({ given: { marketplace: 'EBAY_US' } }, env);
    const rows = settingRows(loaded, true);
    expect(rows.find((row) => row.key === 'marketplace')).toEqual({ key: 'marketplace', value: 'EBAY_US', source: 'flag' });
    expect(rows.at(-1)).toEqual({ key: 'EBAY_GB.condition', value: 'USED_GOOD', source: 'env LISTINGS_EBAY_GB_CONDITION' });
    expect(settingRows(loaded, false).some((row) => row.key.includes('.'))).toBe(false);
    const json = settingsJson(loaded) as { profile: string; settings: Record<string, unknown>; marketplaces: Record<string, Record<string, unknown>> };
    expect(json.profile).toBe('default');
    expect(json.settings.base_url).toEqual({ value: null, source: 'unset' });
    expect(json.marketplaces.EBAY_GB?.condition).toEqual({ value: 'USED_GOOD', source: 'env', own: true });
  });

  it('uses a profile the file holds; another is a ConfigError', async () => {
    const env = { LISTINGS_CONFIG_DIR: tempDir() };
    await (await ProfileStore.open(env)).set('eu', 'marketplace', 'EBAY_DE');
    await useProfile('eu', env);
    expect((await ProfileStore.open(env)).activeProfile(undefined, {})).toBe('eu');
    await expect(useProfile('us', env)).rejects.toThrow('no profile named "us"');
    await expect(useProfile('bad name', env)).rejects.toThrow(/not a valid profile name/);
  });
});
