import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliName } from '../../../src/cli/setting-flags.js';
import { ListingsClient } from '../../../src/client/listings-client.js';
import { UsageError } from '../../../src/errors.js';
import { prepareOneListing, sendOneListing } from '../../../src/publish/one-listing.js';
import { MissingSettingsError } from '../../../src/prepare/missing-settings.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import type { ListingDefaults } from '../../../src/prepare/types.js';

const wrapped: ListingDefaults = { shape: 'wrapped', saved_defaults: false, marketplace: 'ebay' };

describe('one listing given by its fields (listings create)', () => {
  it('is checked locally: a request, or the issues that make it invalid', () => {
    const ready = prepareOneListing({ sku: 'A-1', title: 'A lamp' }, { ...wrapped });
    expect(ready).toMatchObject({ request: { marketplace: 'ebay', payload: { sku: 'A-1', title: 'A lamp' } } });
    const invalid = prepareOneListing({ sku: 'A-1' }, { ...wrapped });
    expect('issues' in invalid && invalid.issues.map((issue) => issue.path)).toContain('title');
  });

  // Before: the wrapped body has no images and the flat one no title, and each given was dropped in silence.
  it('a field its shape has no place for is a UsageError naming each, nothing prepared', () => {
    expect(() => prepareOneListing({ sku: 'A-1', title: 'A lamp', images: ['https://img.example/a.jpg'], givenSettings: ['condition', 'marketplace'] }, { ...wrapped })).toThrow(
      /^the wrapped request has no place for images, condition: the listing would be created without them$/,
    );
    expect(() => prepareOneListing({ sku: 'A-1', title: 'A lamp' }, { shape: 'flat', saved_defaults: true, marketplace: 'EBAY_US' })).toThrow(/the flat request has no place for title/);
    expect(prepareOneListing({ sku: 'A-1', images: ['https://img.example/a.jpg'], givenSettings: ['condition'] }, { shape: 'flat', saved_defaults: true, marketplace: 'EBAY_US', condition: 'NEW' })).toHaveProperty('request');
  });

  // Before: each was an invalid field of the one listing (exit 1, as a catalog's bad row), where a catalog that no
  // default or row gives them is a settings error (exit 2): the one listing has no row that could give them.
  it('settings no default gives are a MissingSettingsError naming each, offering no catalog column', () => {
    const missing = (() => {
      try {
        prepareOneListing({ sku: 'A-1', images: ['https://img.example/a.jpg'] }, { shape: 'flat', saved_defaults: false, marketplace: 'EBAY_US', merchant_location_key: 'loc-1' });
      } catch (thrown) {
        return thrown as MissingSettingsError;
      }
      throw new Error('no error');
    })();
    expect(missing).toBeInstanceOf(MissingSettingsError);
    expect(missing.settings).toEqual(['fulfillment_policy_id', 'payment_policy_id', 'return_policy_id']);
    expect(missing.message).toBe(
      'fulfillment_policy_id, payment_policy_id, return_policy_id are not set; give each with:\n  fulfillment_policy_id: defaults.fulfillment_policy_id\n  payment_policy_id: defaults.payment_policy_id\n  return_policy_id: defaults.return_policy_id',
    );
    expect(() => prepareOneListing({ sku: 'A-1', title: 'A lamp' }, { shape: 'wrapped', saved_defaults: false })).toThrow(/^marketplace is not set; give it with:/);
  });

  it('defaults that name several marketplaces are a UsageError naming the setting', () => {
    const error = (() => {
      try {
        prepareOneListing({ sku: 'A-1' }, { shape: 'flat', saved_defaults: true, marketplaces: ['EBAY_US', 'EBAY_GB'] });
      } catch (thrown) {
        return thrown as UsageError;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error.hint).toBe('pass one with marketplace, e.g. marketplace EBAY_US (or publish a catalog to all of them)');
    expect(error.wordedWith(cliName).hint).toBe('pass one with --marketplace, e.g. --marketplace EBAY_US (or publish a catalog to all of them)');
  });

  describe('sent', () => {
    let sandbox: Sandbox;
    let client: ListingsClient;
    beforeAll(async () => {
      sandbox = await startSandbox({ port: 0, apiKey: 'k-one' });
      client = new ListingsClient({ baseUrl: sandbox.url, apiKey: 'k-one', connections: 1, proxy: false });
    });
    afterAll(async () => {
      await client.close();
      await sandbox.close();
    });

    it('answers the listing created, or returns a rejected item; the service failing is thrown', async () => {
      const ready = prepareOneListing({ sku: 'A-1', title: 'A lamp' }, { ...wrapped });
      if (!('request' in ready)) throw new Error('not ready');
      const sent = await sendOneListing(client, ready.request);
      expect(sent).toMatchObject({ status: 201, listing: { sku: 'A-1' } });
      const request = ready.request as { marketplace: string; payload: Record<string, unknown> };
      const bad = await sendOneListing(client, { ...request, payload: { ...request.payload, title: '' } } as unknown as typeof ready.request);
      expect('rejected' in bad && bad.rejected.status).toBe(400);
      const unauthorised = new ListingsClient({ baseUrl: sandbox.url, apiKey: 'wrong', connections: 1, proxy: false });
      await expect(sendOneListing(unauthorised, ready.request)).rejects.toMatchObject({ status: 401 });
      await unauthorised.close();
    });
  });
});
