import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/** `listings config` refuses up front what a run would refuse later, and reads any profile it can write. */
describe('listings config: checks at the time of writing', () => {
  const shared = () => ({ env: { LISTINGS_CONFIG_DIR: tempDir() } });

  it('refuses a plain-http base_url to a host that is not loopback, unless told to allow it', async () => {
    const options = shared();
    const refused = await runCli(['config', 'set', 'base_url', 'http://api.example.com'], options);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing to send the API key over plain http to api\.example\.com/);
    expect((await runCli(['config', 'get', 'base_url'], options)).code).toBe(1);
    expect((await runCli(['config', 'set', 'base_url', 'http://api.example.com', '--allow-insecure-http'], options)).code).toBe(0);
    expect((await runCli(['config', 'set', 'base_url', 'http://127.0.0.1:4010'], options)).code).toBe(0);
    expect((await runCli(['config', 'set', 'concurrency', '0'], options)).code).toBe(2);
  });

  it('config get takes --profile, as set and list do', async () => {
    const options = shared();
    expect((await runCli(['config', 'set', '--profile', 'staging', 'marketplace', 'EBAY_GB'], options)).code).toBe(0);
    const got = await runCli(['config', 'get', 'marketplace', '--profile', 'staging'], options);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout.trim()).toBe('EBAY_GB');
    expect((await runCli(['config', 'get', 'marketplace'], options)).code).toBe(1);
  });

  it('config use refuses a profile that does not exist, and says how to make it', async () => {
    const options = shared();
    const refused = await runCli(['config', 'use', 'nosuch'], options);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/no profile named "nosuch"/);
    expect(refused.stderr).toMatch(/listings config set --profile nosuch KEY VALUE/);
    const profiles = await runCli(['config', 'profiles'], options);
    expect(profiles.stdout).not.toMatch(/nosuch/);
    expect((await runCli(['config', 'set', '--profile', 'nosuch', 'marketplace', 'EBAY_DE'], options)).code).toBe(0);
    expect((await runCli(['config', 'use', 'nosuch'], options)).code).toBe(0);
  });
});
