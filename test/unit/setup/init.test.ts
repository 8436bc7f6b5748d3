import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../../src/config/resolve.js';
import { ProfileStore } from '../../../src/config/store.js';
import { ConfigError, libraryName, UsageError } from '../../../src/errors.js';
import { cliName } from '../../../src/cli/setting-flags.js';
import { apiKeyHere, startingAnswers, unanswered, writeAnswers } from '../../../src/setup/init-profile.js';
import { accept, acceptGiven, QUESTIONS, type Answers } from '../../../src/setup/init-questions.js';
import { tempDir } from '../../helpers/tmp.js';

const question = (key: string) => QUESTIONS.find((q) => q.key === key)!;
const context = { allowInsecureHttp: false };

describe("listings init's questions", () => {
  it.each([
    ['saved_defaults', 'y', {}, true],
    ['saved_defaults', 'No', {}, false],
    ['marketplace', 'ebay_us', {}, 'EBAY_US'],
    ['marketplace', 'EBAY', { shape: 'wrapped' }, 'ebay'],
    ['base_url', 'http://127.0.0.1:4010', {}, 'http://127.0.0.1:4010'],
  ] as const)('%s %j (after %j) is taken as %j', (key, raw, answers, value) => {
    expect(accept(question(key), raw, { ...answers }, context)).toBe(value);
  });

  it.each([
    ['saved_defaults', 'maybe', {}, /^answer yes or no$/],
    ['marketplace', 'ebay', {}, /the flat shape needs the upper-case form with a region/],
    ['marketplace', 'EBAY_US,EBAY_GB', { shape: 'wrapped' }, /the wrapped shape needs the lower-case form/],
  ] as const)('%s %j (after %j) is refused with the reason, to be asked again', (key, raw, answers, reason) => {
    expect(() => accept(question(key), raw, { ...answers }, context)).toThrow(reason);
  });

  it('an answer given beforehand that cannot be taken is a UsageError naming the setting, worded as a flag by the CLI', () => {
    const error = (() => {
      try {
        acceptGiven(question('marketplace'), 'ebay', {}, context);
      } catch (thrown) {
        return thrown as UsageError;
      }
      throw new Error('accepted');
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error.setting).toEqual({ key: 'marketplace' });
    expect(error.wordedWith(libraryName).message).toMatch(/^marketplace: the flat shape needs/);
    expect(error.wordedWith(cliName).message).toMatch(/^--marketplace: the flat shape needs/);
    // A base URL the client refuses keeps the client's own error (and its hint).
    expect(() => acceptGiven(question('base_url'), 'http://api.example.com', {}, context)).toThrow(ConfigError);
  });

  it('without questions, the settings asked for that have no answer, in order: the ids only when sent', () => {
    expect(unanswered({}, context)).toEqual(['base_url', 'api_key_env', 'shape', 'marketplace', 'saved_defaults', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id']);
    expect(unanswered({ saved_defaults: true }, context)).toEqual(['base_url', 'api_key_env', 'shape', 'marketplace']);
    const answers: Answers = { shape: 'wrapped', marketplace: 'EBAY' };
    expect(unanswered(answers, context)).toEqual(['base_url', 'api_key_env']);
    expect(answers.marketplace).toBe('ebay');
  });
});

describe('the profile listings init writes', () => {
  it('writes the answers and whatever was given, and removes the ids saved defaults make unused', async () => {
    const env = { LISTINGS_CONFIG_DIR: tempDir() };
    const store = await ProfileStore.open(env);
    await store.set('shop', 'merchant_location_key', 'loc-1');
    await store.set('shop', 'payment_policy_id', 'pay-1');
    const before = store.values('shop');
    const resolved = resolveSettings({ flags: { saved_defaults: true, condition: 'NEW' }, env, profile: before });
    const answers = { ...startingAnswers(resolved), base_url: 'http://127.0.0.1:4010', marketplace: 'EBAY_US' };
    expect(startingAnswers(resolved)).toMatchObject({ saved_defaults: true, merchant_location_key: 'loc-1', shape: 'flat' });
    expect(unanswered(answers, context)).toEqual([]);
    const result = await writeAnswers(store, 'shop', answers, resolved, before);
    expect(result).toEqual({
      written: ['base_url', 'api_key_env', 'shape', 'marketplace', 'saved_defaults', 'condition'],
      removed: ['merchant_location_key', 'payment_policy_id'],
      removedBecause: 'the saved Marketplace configurations apply',
    });
    expect(store.values('shop')).toEqual({ base_url: 'http://127.0.0.1:4010', api_key_env: 'LISTINGS_API_KEY', shape: 'flat', marketplace: 'EBAY_US', saved_defaults: true, condition: 'NEW' });
  });

  it('finds the API key in the variable the answers name, or says it is not set', () => {
    expect(apiKeyHere({ api_key_env: 'MY_KEY' }, { MY_KEY: 'sk_test_1' })).toEqual({ keyEnv: 'MY_KEY', key: 'sk_test_1' });
    expect(apiKeyHere({}, { LISTINGS_API_KEY: '  ' })).toEqual({ keyEnv: 'LISTINGS_API_KEY', key: undefined });
  });
});
