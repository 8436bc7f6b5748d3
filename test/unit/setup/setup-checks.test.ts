import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliName } from '../../../src/cli/setting-flags.js';
import type { Check } from '../../../src/client/diagnose-check.js';
import { ProfileStore } from '../../../src/config/store.js';
import { ConfigError, libraryName } from '../../../src/errors.js';
import { checksFault } from '../../../src/setup/diagnose-setup.js';
import { baseUrlCheck, keyCheck, profileCheck, stateDirCheck } from '../../../src/setup/setup-checks.js';
import { loadSettings } from '../../../src/setup/settings.js';
import { tempDir } from '../../helpers/tmp.js';

const check = (status: Check['status'], kind?: Check['kind']): Check => ({ name: 'x', status, message: '', ...(kind === undefined ? {} : { kind }) });

describe("doctor's checks of the setup", () => {
  it.each([
    [[check('ok'), check('warn'), check('skip')], undefined],
    [[check('fail', 'service'), check('ok')], 'service'],
    [[check('fail', 'service'), check('fail', 'config')], 'config'],
    [[check('fail')], 'service'],
  ] as const)('a failure is the configuration\'s before the service\'s (%#)', (checks, fault) => {
    expect(checksFault(checks)).toBe(fault);
  });

  it('names the profile, where its name came from and what it holds; the base URL and the key by their source', async () => {
    const env = { LISTINGS_CONFIG_DIR: tempDir(), SHOP_KEY: 'sk_live_1' };
    const store = await ProfileStore.open(env);
    await store.set('shop', 'base_url', 'http://127.0.0.1:4010');
    const loaded = await loadSettings({ given: { api_key_env: 'SHOP_KEY' }, profile: 'shop' }, env);
    expect(profileCheck(loaded, 'shop', env, cliName).message).toBe(`shop (from --profile; 1 setting stored) in ${store.path}`);
    expect(profileCheck(loaded, 'shop', env, libraryName).message).toMatch(/^shop \(from profile; /);
    expect(baseUrlCheck(loaded, cliName)).toEqual({ name: 'base URL', status: 'ok', message: 'http://127.0.0.1:4010 (from the profile): listings are sent to http://127.0.0.1:4010/v1/listings' });
    expect(keyCheck(loaded, env, cliName)).toEqual({
      check: { name: 'API key', status: 'ok', message: 'SHOP_KEY is set (named by api_key_env, from --api-key-env); the key is never shown' },
      key: 'sk_live_1',
    });
  });

  it('a base URL that is not set, or not allowed, fails as the configuration\'s, its fix worded by whoever shows it', async () => {
    const env = { LISTINGS_CONFIG_DIR: tempDir() };
    const unset = baseUrlCheck(await loadSettings({ given: {} }, env), cliName);
    expect(unset).toMatchObject({ status: 'fail', kind: 'config' });
    expect(unset.fix).toContain('or --base-url, or LISTINGS_BASE_URL');
    const plain = baseUrlCheck(await loadSettings({ given: { base_url: 'http://api.example.com' } }, env), cliName);
    expect(plain).toMatchObject({ status: 'fail', kind: 'config' });
    expect(plain.message).toMatch(/plain http/);
    expect(plain.fix).toContain('--allow-insecure-http');
  });

  it('the state directory: writable, created and removed again, or not a directory', async () => {
    const cwd = tempDir();
    expect(await stateDirCheck(cwd, cliName)).toEqual({ name: 'state dir', status: 'ok', message: `${join(cwd, '.listings')} can be created (the first run will)` });
    mkdirSync(join(cwd, '.listings'));
    expect((await stateDirCheck(cwd, cliName)).message).toBe(`${join(cwd, '.listings')} is writable`);
    const blocked = tempDir();
    writeFileSync(join(blocked, '.listings'), '');
    const failed = await stateDirCheck(blocked, cliName);
    expect(failed).toMatchObject({ status: 'fail', kind: 'config', message: `${join(blocked, '.listings')} is not a directory` });
    expect(failed.fix).toBe('move it away: runs keep their resume journal and --changed-only state in .listings/');
    expect((await stateDirCheck(blocked, libraryName)).fix).toBe('move it away: runs keep their resume journal and changedOnly state in .listings/');
  });
});

describe('the settings in effect', () => {
  it('a profile named that the file does not hold is a ConfigError whose hint names the setting', async () => {
    const env = { LISTINGS_CONFIG_DIR: tempDir() };
    const error = await loadSettings({ given: {}, profile: 'nope' }, env).then(
      () => undefined,
      (thrown: unknown) => thrown as ConfigError,
    );
    if (error === undefined) throw new Error('no error');
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe('no profile named "nope"');
    expect(error.wordedWith(cliName).hint).toBe('known profiles: default; create it with: listings config set --profile nope KEY VALUE');
  });

  it('given > env > profile, the listing defaults of one marketplace, and the key and base URL asked for', async () => {
    const env = { LISTINGS_CONFIG_DIR: tempDir(), LISTINGS_MARKETPLACE: 'EBAY_GB' };
    const loaded = await loadSettings({ given: { condition: 'NEW' }, allowInsecureHttp: true }, env);
    expect(loaded.defaults).toMatchObject({ marketplace: 'EBAY_GB', condition: 'NEW', shape: 'flat' });
    expect(loaded.sources.marketplace).toBe('env');
    expect(loaded.allowInsecureHttp).toBe(true);
    const noKey = (() => {
      try {
        loaded.apiKey();
      } catch (thrown) {
        return thrown as ConfigError;
      }
      throw new Error('no error');
    })();
    expect(noKey.wordedWith(cliName).hint).toBe('export LISTINGS_API_KEY=<key from the dashboard> (or name another variable with --api-key-env)');
    expect(() => loaded.baseUrl()).toThrow(/no base_url/);
  });
});
