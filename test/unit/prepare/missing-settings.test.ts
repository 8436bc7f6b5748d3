import { describe, expect, it } from 'vitest';
import { createSettingsCheck, FIRST_ROWS, MissingSettingsError, missingSettings, neededSettings, requireSettings } from '../../../src/prepare/index.js';
import { wordError } from '../../../src/cli/report-error.js';
import { UsageError } from '../../../src/errors.js';
import type { Draft, DraftValues } from '../../../src/catalog/types.js';
import type { ListingDefaults } from '../../../src/prepare/types.js';
import { collect } from '../../helpers/sources-collect.js';
import { messagesPlace } from '../../../src/stream/message-draft.js';

const POLICIES = { merchant_location_key: 'wh', fulfillment_policy_id: 'f', payment_policy_id: 'p', return_policy_id: 'r' } as const;
const FLAT: ListingDefaults = { shape: 'flat', saved_defaults: false };
const ALL = ['marketplace', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id'];

function draft(line: number, values: DraftValues, extra: Partial<Draft> = {}): Draft {
  return { location: { source: 'cat.csv', line }, values, issues: [], ...extra };
}

/** `count` drafts of `values`, lines from 2; `at` overrides the values of some rows (0-based). */
function drafts(count: number, values: DraftValues, at: Record<number, DraftValues> = {}): Draft[] {
  return Array.from({ length: count }, (_, i) => draft(i + 2, at[i] ?? { sku: `S${i}`, ...values }));
}

/** An async source that counts what was read from it and whether it was closed. */
function source(items: Draft[], failAt?: number) {
  const seen = { read: 0, closed: false };
  async function* generate(): AsyncGenerator<Draft> {
    try {
      for (let i = 0; i < items.length; i++) {
        if (i === failAt) throw new Error('cut');
        seen.read++;
        await Promise.resolve();
        yield items[i]!;
      }
      if (failAt === items.length) throw new Error('cut');
    } finally {
      seen.closed = true;
    }
  }
  return { drafts: generate(), seen };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('neededSettings: what the shape needs and no default covers', () => {
  it.each<[string, ListingDefaults, string[]]>([
    ['flat, nothing set', FLAT, ALL],
    ['flat, saved defaults', { ...FLAT, saved_defaults: true }, ['marketplace']],
    ['flat, every default', { ...FLAT, marketplace: 'EBAY_US', ...POLICIES }, []],
    ['flat, one policy id set', { ...FLAT, payment_policy_id: 'p' }, ALL.filter((s) => s !== 'payment_policy_id')],
    ['wrapped sends no policy ids', { shape: 'wrapped', saved_defaults: false }, ['marketplace']],
    ['wrapped with a marketplace', { shape: 'wrapped', saved_defaults: false, marketplace: 'ebay' }, []],
  ])('%s', (_name, defaults, needed) => {
    expect(neededSettings(defaults)).toEqual(needed);
  });
});

describe('missingSettings: judged from the rows given', () => {
  it('no row has the column: every needed setting is missing, in the table order', () => {
    expect(missingSettings(drafts(3, {}), FLAT)).toEqual(ALL);
  });

  it('one row with a value is enough (the others stay per-row invalid)', () => {
    expect(missingSettings(drafts(3, POLICIES, { 1: { sku: 'X', marketplace: 'EBAY_US', ...POLICIES } }), FLAT)).toEqual([]);
  });

  it('settings may come from different rows', () => {
    const rows = drafts(2, {}, { 0: { marketplace: 'EBAY_US', merchant_location_key: 'wh' }, 1: { fulfillment_policy_id: 'f', payment_policy_id: 'p', return_policy_id: 'r' } });
    expect(missingSettings(rows, FLAT)).toEqual([]);
  });

  it('rows that tell nothing of the columns (unreadable, skipped by design) prove nothing', () => {
    const unreadable = draft(2, {}, { issues: [{ path: '(record)', message: 'the row has 3 fields but the header has 2' }] });
    const grouped = draft(3, { sku: 'G' }, { skip: 'grouped product' });
    expect(missingSettings([unreadable, grouped], FLAT)).toEqual([]);
    expect(missingSettings([], FLAT)).toEqual([]);
    // A row with a field issue still tells the columns.
    expect(missingSettings([unreadable, draft(4, { sku: 'A' }, { issues: [{ path: 'images_source[0]', message: 'bad' }] })], FLAT)).toEqual(ALL);
  });

  it('defaults cover what rows leave out; saved defaults spare the policy ids; wrapped needs only the marketplace', () => {
    expect(missingSettings(drafts(3, {}), { ...FLAT, marketplace: 'EBAY_US', ...POLICIES })).toEqual([]);
    expect(missingSettings(drafts(3, { marketplace: 'EBAY_US' }), { ...FLAT, saved_defaults: true })).toEqual([]);
    expect(missingSettings(drafts(3, { title: 't' }), { shape: 'wrapped', saved_defaults: false })).toEqual(['marketplace']);
  });
});

describe('createSettingsCheck: the first rows of a run, before anything is sent', () => {
  it('every setting has a default: the drafts are passed on untouched, nothing read', async () => {
    const { drafts: input, seen } = source(drafts(5, {}));
    const out = await requireSettings(input, { ...FLAT, marketplace: 'EBAY_US', ...POLICIES });
    expect(out).toBe(input);
    expect(seen.read).toBe(0);
  });

  it('the first row gives everything: one row read ahead, then every row comes out, in order', async () => {
    const rows = drafts(500, { marketplace: 'EBAY_US', ...POLICIES });
    const { drafts: input, seen } = source(rows);
    const out = await requireSettings(input, FLAT);
    expect(seen.read).toBe(1);
    expect(await collect(out)).toEqual(rows);
  });

  it('no row gives the marketplace: MissingSettingsError (a UsageError) after the whole short catalog, source closed', async () => {
    const { drafts: input, seen } = source(drafts(3, POLICIES));
    const error = await rejection(requireSettings(input, FLAT));
    expect(error).toBeInstanceOf(MissingSettingsError);
    expect(error).toBeInstanceOf(UsageError);
    const missing = error as MissingSettingsError;
    expect(missing.settings).toEqual(['marketplace']);
    expect(missing.examined).toEqual({ source: 'cat.csv', rows: 3, whole: true });
    // The library names its own option; the CLI its flag, variable and profile.
    expect(missing.message).toBe(
      'marketplace is not set, and none of the 3 rows of cat.csv has a value for it; give it with:\n' +
        '  marketplace: defaults.marketplace, or a marketplace column in the catalog',
    );
    expect(missing.hint).toContain('EBAY_US');
    expect(missing.hint).not.toContain('--');
    expect(wordError(missing).message).toBe(
      'marketplace is not set, and none of the 3 rows of cat.csv has a value for it; give it with:\n' +
        '  marketplace: --marketplace <id>, LISTINGS_MARKETPLACE=<id>, `listings config set marketplace <id>`, or a marketplace column in the catalog',
    );
    expect(wordError(missing).hint).toBe('the flat shape takes a marketplace such as EBAY_US (ebay with --shape wrapped)');
    expect(seen.closed).toBe(true);
  });

  it('rows are counted as input rows: a listing a preset folded from three rows counts three', async () => {
    const folded = [draft(2, { sku: 'P' }, { rows: 3 }), draft(5, { sku: 'Q' })];
    const error = (await rejection(requireSettings(source(folded).drafts, { ...FLAT, saved_defaults: true }))) as MissingSettingsError;
    expect(error.examined).toEqual({ source: 'cat.csv', rows: 4, whole: true });
    expect(error.message).toContain('none of the 4 rows of cat.csv');
  });

  it("a stream's messages are worded as messages: topic, partition, offsets, a field of the messages", async () => {
    const messages = (from: number, count: number): Draft[] =>
      Array.from({ length: count }, (_, i) => ({ location: { source: 'products/2', record: from + i }, values: { sku: `S${i}`, ...POLICIES }, issues: [] }));
    const error = (await rejection(createSettingsCheck(FLAT, FIRST_ROWS, messagesPlace)(source([...messages(40, 3), ...messages(7, 1).map((m) => ({ ...m, location: { source: 'products/0', record: 7 } }))]).drafts))) as MissingSettingsError;
    expect(error).toBeInstanceOf(MissingSettingsError);
    expect(error.examined).toEqual({ source: 'products/2', rows: 3, whole: false, messages: { of: 'topic products, partition 2', first: 40, last: 42 } });
    expect(error.message).toBe(
      'marketplace is not set, and none of the first 3 messages read (topic products, partition 2, offsets 40 to 42) has a value for it; give it with:\n' +
        '  marketplace: defaults.marketplace, or a marketplace field in the messages',
    );
    expect(wordError(error).message).toBe(
      'marketplace is not set, and none of the first 3 messages read (topic products, partition 2, offsets 40 to 42) has a value for it; give it with:\n' +
        '  marketplace: --marketplace <id>, LISTINGS_MARKETPLACE=<id>, `listings config set marketplace <id>`, or a marketplace field in the messages',
    );
    const one = (await rejection(createSettingsCheck(FLAT, 1, messagesPlace)(source(messages(5, 2)).drafts))) as MissingSettingsError;
    expect(one.message).toMatch(/^marketplace is not set, and the first message read \(topic products, partition 2, offset 5\) has no value for it;/);
  });

  it('a long catalog: judged from the first FIRST_ROWS rows only, and the source is closed', async () => {
    const { drafts: input, seen } = source(drafts(1000, {}));
    const error = (await rejection(requireSettings(input, FLAT))) as MissingSettingsError;
    expect(error.settings).toEqual(ALL);
    expect(error.examined).toEqual({ source: 'cat.csv', rows: FIRST_ROWS, whole: false });
    expect(error.message).toMatch(/^marketplace, merchant_location_key, fulfillment_policy_id, payment_policy_id, return_policy_id are not set, and none of the first 100 rows of cat\.csv has a value for them; give each with:\n/);
    for (const setting of ALL) expect(error.message).toContain(`\n  ${setting}: `);
    expect(error.message).toContain('  return_policy_id: defaults.return_policy_id, or a return_policy_id column');
    expect(error.hint).toContain('defaults.saved_defaults');
    expect(wordError(error).message).toContain('LISTINGS_RETURN_POLICY_ID=<id>');
    expect(wordError(error).hint).toContain('--saved-defaults');
    expect(seen.read).toBe(FIRST_ROWS);
    expect(seen.closed).toBe(true);
  });

  it('a value first seen in row 60: no error, 60 rows read ahead, every row comes out', async () => {
    const rows = drafts(300, POLICIES, { 59: { sku: 'late', marketplace: 'EBAY_US', ...POLICIES } });
    const { drafts: input, seen } = source(rows);
    const out = await requireSettings(input, FLAT);
    expect(seen.read).toBe(60);
    expect(await collect(out)).toEqual(rows);
  });

  it('a source that fails among the first rows is not judged: its rows, then its error, as without the check', async () => {
    const rows = drafts(5, {});
    const { drafts: input } = source(rows, 3);
    const out = await requireSettings(input, FLAT);
    const got: Draft[] = [];
    const error = await rejection(
      (async () => {
        for await (const item of out) got.push(item);
      })(),
    );
    expect(got).toEqual(rows.slice(0, 3));
    expect((error as Error).message).toBe('cut');
  });

  it('a source that fails before any row: the error comes out of the drafts, unchanged (a catalog without a SKU column)', async () => {
    const failing = new UsageError('no sku column');
    const input: AsyncIterable<Draft> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(failing) }),
    };
    const out = await requireSettings(input, FLAT);
    expect(await rejection(collect(out))).toBe(failing);
  });

  it('closing the drafts early closes the source', async () => {
    const { drafts: input, seen } = source(drafts(50, { marketplace: 'EBAY_US', ...POLICIES }));
    const out = await requireSettings(input, FLAT);
    for await (const item of out) if (item.location.line === 5) break;
    expect(seen.closed).toBe(true);
  });

  it('only the first source is judged: a run read as one stream and one read source by source agree', async () => {
    const first = drafts(2, {}).map((d) => ({ ...d, location: { source: 'a.csv', line: d.location.line! } }));
    const second = drafts(2, { marketplace: 'EBAY_US', ...POLICIES }).map((d) => ({ ...d, location: { source: 'b.csv', line: d.location.line! } }));
    // One stream (publish): the peek stops where b.csv begins, and judges a.csv.
    const whole = (await rejection(requireSettings(source([...first, ...second]).drafts, FLAT))) as MissingSettingsError;
    expect(whole.examined).toEqual({ source: 'a.csv', rows: 2, whole: true });
    // Source by source through one check (validate): the same judgement.
    const check = createSettingsCheck(FLAT);
    expect(((await rejection(check(source(first).drafts))) as MissingSettingsError).examined).toEqual(whole.examined);
  });

  it('source by source: an empty first source is not judged, the next one is; after a judgement the rest pass untouched', async () => {
    const check = createSettingsCheck(FLAT);
    expect(await collect(await check(source([]).drafts))).toEqual([]);
    const good = drafts(2, { marketplace: 'EBAY_US', ...POLICIES });
    expect(await collect(await check(source(good).drafts))).toEqual(good);
    const later = source(drafts(2, {}));
    expect(await check(later.drafts)).toBe(later.drafts);
  });
});
