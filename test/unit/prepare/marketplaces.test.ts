import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Draft, DraftValues } from '../../../src/catalog/types.js';
import { envMarketplaces, resolveMarketplaceSettings, type MarketplaceLayers } from '../../../src/config/marketplace-settings.js';
import { marketplaceEnv, splitMarketplaces } from '../../../src/config/options.js';
import { resolveSettings } from '../../../src/config/resolve.js';
import { ProfileStore } from '../../../src/config/store.js';
import { ConfigError } from '../../../src/errors.js';
import { FanOut, checkFanOut, fanOutDrafts } from '../../../src/prepare/fan-out.js';
import { MissingSettingsError, neededSettings, requireSettings } from '../../../src/prepare/missing-settings.js';
import { wordError } from '../../../src/cli/report-error.js';
import { createPreparer } from '../../../src/prepare/preparer.js';
import { SkuRegistry } from '../../../src/prepare/sku-registry.js';
import type { ListingDefaults, PreparedRow } from '../../../src/prepare/types.js';
import { runTarget, sameTarget, sandboxTarget } from '../../../src/publish/run-target.js';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import { SummaryCounter } from '../../../src/report/summary.js';
import { openReport } from '../../../src/report/report-writer.js';
import { RetrySelection, readRetryRows } from '../../../src/report/retry-rows.js';
import { collect } from '../../helpers/sources-collect.js';
import { tempDir } from '../../helpers/tmp.js';

const POLICIES = { merchant_location_key: 'wh', fulfillment_policy_id: 'F', payment_policy_id: 'P', return_policy_id: 'R' } as const;
const FAN: ListingDefaults = { shape: 'flat', saved_defaults: false, marketplaces: ['EBAY_US', 'EBAY_GB'], ...POLICIES };
const IMAGE = ['https://images.example.com/a.jpg'];

function draft(line: number, values: DraftValues, extra: Partial<Draft> = {}): Draft {
  return { location: { source: 'cat.csv', line }, values, issues: [], ...extra };
}

async function* source(drafts: Draft[], seen: { closed: boolean } = { closed: false }): AsyncGenerator<Draft> {
  try {
    for (const item of drafts) {
      await Promise.resolve();
      yield item;
    }
  } finally {
    seen.closed = true;
  }
}

describe('SkuRegistry: a listing is (marketplace, SKU)', () => {
  it('the same SKU on another marketplace is another listing; the same pair twice is a duplicate', () => {
    const registry = new SkuRegistry();
    expect(registry.firstSeen('A1', { source: 'c', line: 2 }, 'EBAY_US')).toBeUndefined();
    expect(registry.firstSeen('A1', { source: 'c', line: 3 }, 'EBAY_GB')).toBeUndefined();
    expect(registry.firstSeen('A1', { source: 'c', line: 4 }, 'EBAY_GB')).toEqual({ source: 'c', line: 3 });
    expect(registry.firstSeen('A1', { source: 'c', line: 5 }, 'EBAY_US')).toEqual({ source: 'c', line: 2 });
    // No marketplace is a marketplace of its own ('' ), not a wildcard.
    expect(registry.firstSeen('A1', { source: 'c', line: 6 })).toBeUndefined();
    expect(registry.size).toBe(3);
  });

  it('cannot be fooled by where the marketplace ends and the SKU begins, by unicode or by long values', () => {
    const registry = new SkuRegistry();
    const reference = new Map<string, { source: string; line: number }>();
    const wrong: unknown[] = [];
    const cases: [string, string][] = [
      ['AB', 'C'],
      ['A', 'BC'],
      ['', 'ABC'],
      ['ABC', ''],
      ['ÄB', 'C'],
      ['A', 'ÆØ'],
      ['X'.repeat(300), 'EBAY_US'],
      ['SKU', 'M'.repeat(254)],
      ['SKU', 'M'.repeat(260)],
    ];
    let line = 1;
    for (let round = 0; round < 3; round++) {
      for (const [sku, marketplace] of cases) {
        const key = JSON.stringify([marketplace, sku]);
        const location = { source: 'c', line: ++line };
        const expected = reference.get(key);
        if (expected === undefined) reference.set(key, location);
        const got = registry.firstSeen(sku, location, marketplace);
        if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push([sku, marketplace, got, expected]);
      }
    }
    // A fan-out's pattern: rows alternate between marketplaces, over enough rows to grow the table.
    for (let i = 0; i < 120_000; i++) {
      const sku = `SKU-${String(i >> 1).padStart(7, '0')}`;
      const marketplace = i % 2 === 0 ? 'EBAY_US' : 'EBAY_GB';
      const key = JSON.stringify([marketplace, sku]);
      const location = { source: 'big.csv', line: (i >> 1) + 2 };
      const expected = reference.get(key);
      if (expected === undefined) reference.set(key, location);
      const got = registry.firstSeen(sku, location, marketplace);
      if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push([sku, marketplace, got, expected]);
    }
    expect(registry.firstSeen('SKU-0000007', { source: 'again', line: 1 }, 'EBAY_GB')).toEqual({ source: 'big.csv', line: 9 });
    expect(wrong).toEqual([]);
    expect(registry.size).toBe(reference.size);
  });
});

describe('FanOut: one draft per marketplace', () => {
  it('fans a row with no marketplace out to each, in order; a row naming its own, a skipped row and an unreadable record stay one', async () => {
    const drafts = [
      draft(2, { sku: 'A' }),
      draft(3, { sku: 'B', marketplace: 'EBAY_DE' }),
      draft(4, { sku: 'C' }, { skip: 'grouped product' }),
      draft(5, {}, { issues: [{ path: '(record)', message: 'cannot be read' }] }),
      draft(6, { sku: 'D' }, { rows: 3 }),
    ];
    const fan = new FanOut(source(drafts), FAN);
    const out = await collect(fan);
    expect(out.map((d) => `${d.location.line}:${d.values.sku ?? '-'}:${d.values.marketplace ?? '-'}:${d.rows ?? 1}`)).toEqual([
      '2:A:EBAY_US:1',
      '2:A:EBAY_GB:0',
      '3:B:EBAY_DE:1',
      '4:C:-:1',
      '5:-:-:1',
      '6:D:EBAY_US:3',
      '6:D:EBAY_GB:0',
    ]);
    // The input rows still add up: the first copy counts them.
    expect(out.reduce((sum, d) => sum + (d.rows ?? 1), 0)).toBe(7);
    expect(fan.taken).toBe(5);
    expect(fan.factor).toBe(2);
    // The drafts given are left as they were.
    expect(drafts[0]!.values.marketplace).toBeUndefined();
  });

  it('counts the copies of the last row not handed on, and closes the source when left early', async () => {
    const seen = { closed: false };
    const fan = new FanOut(source([draft(2, { sku: 'A' }), draft(3, { sku: 'B' })], seen), { ...FAN, marketplaces: ['EBAY_US', 'EBAY_GB', 'EBAY_DE'] });
    const iterator = fan[Symbol.asyncIterator]();
    await iterator.next();
    expect([fan.taken, fan.copiesLeft]).toEqual([1, 2]);
    await iterator.next();
    expect(fan.copiesLeft).toBe(1);
    await iterator.return?.();
    expect(seen.closed).toBe(true);
  });

  it('with one marketplace or none the drafts pass untouched', () => {
    const drafts = source([]);
    expect(fanOutDrafts(drafts, { shape: 'flat', saved_defaults: false, marketplace: 'EBAY_US' })).toBe(drafts);
    expect(fanOutDrafts(drafts, { shape: 'flat', saved_defaults: false })).toBe(drafts);
  });

  it('refuses marketplaces that are one in the shape\'s form', () => {
    expect(() => checkFanOut({ shape: 'wrapped', saved_defaults: false, marketplaces: ['EBAY_US', 'EBAY_GB'] })).toThrow(ConfigError);
    expect(() => checkFanOut({ shape: 'flat', saved_defaults: false, marketplaces: ['EBAY_US', 'ebay_us'] })).toThrow(/EBAY_US and ebay_us are one marketplace/);
    expect(() => checkFanOut(FAN)).not.toThrow();
  });
});

describe('preparer: each marketplace its own defaults, duplicates by pair', () => {
  const defaults: ListingDefaults = {
    ...FAN,
    per_marketplace: { EBAY_GB: { ...POLICIES, fulfillment_policy_id: 'F-GB', condition: 'USED' } },
  };

  it('a row on a marketplace with a section gets that section; the others the general values; the row\'s own value wins', async () => {
    const prepare = createPreparer(defaults);
    const rows = (await collect(fanOutDrafts(source([draft(2, { sku: 'A', images_source: IMAGE }), draft(3, { sku: 'B', images_source: IMAGE, fulfillment_policy_id: 'ROW' })]), defaults))).map(prepare);
    const sent = rows.map((row) => (row.kind === 'ready' ? row.request : row));
    expect(sent).toEqual([
      { images_source: IMAGE, sku: 'A', marketplace: 'EBAY_US', ...POLICIES },
      { images_source: IMAGE, sku: 'A', marketplace: 'EBAY_GB', ...POLICIES, fulfillment_policy_id: 'F-GB', overrides: { condition: 'USED' } },
      { images_source: IMAGE, sku: 'B', marketplace: 'EBAY_US', ...POLICIES, fulfillment_policy_id: 'ROW' },
      { images_source: IMAGE, sku: 'B', marketplace: 'EBAY_GB', ...POLICIES, fulfillment_policy_id: 'ROW', overrides: { condition: 'USED' } },
    ]);
    expect(rows.map((row) => row.marketplace)).toEqual(['EBAY_US', 'EBAY_GB', 'EBAY_US', 'EBAY_GB']);
    // A row naming its marketplace in a form the shape converts gets the same section.
    expect(prepare(draft(4, { sku: 'C', images_source: IMAGE, marketplace: 'ebay_gb' }))).toMatchObject({ kind: 'ready', request: { marketplace: 'EBAY_GB', fulfillment_policy_id: 'F-GB' } });
  });

  it('the same SKU on two marketplaces is two listings; the same pair again is invalid, naming the first, in any spelling', () => {
    const prepare = createPreparer({ shape: 'flat', saved_defaults: false, ...POLICIES });
    const rows: PreparedRow[] = [
      prepare(draft(2, { sku: 'A', marketplace: 'EBAY_US', images_source: IMAGE })),
      prepare(draft(3, { sku: 'A', marketplace: 'EBAY_GB', images_source: IMAGE })),
      prepare(draft(4, { sku: 'A', marketplace: 'ebay_gb', images_source: IMAGE })),
    ];
    expect(rows.map((row) => row.kind)).toEqual(['ready', 'ready', 'invalid']);
    expect(rows[2]).toMatchObject({ marketplace: 'EBAY_GB', issues: [{ path: 'sku', message: 'duplicate SKU; first seen at cat.csv:3' }] });
  });
});

describe('missing settings: each marketplace judged by its own defaults', () => {
  // No general fulfillment policy: EBAY_US has its own, EBAY_GB has none.
  const partial: ListingDefaults = {
    shape: 'flat',
    saved_defaults: false,
    marketplaces: ['EBAY_US', 'EBAY_GB'],
    merchant_location_key: 'wh',
    payment_policy_id: 'P',
    return_policy_id: 'R',
    per_marketplace: { EBAY_US: { ...POLICIES } },
  };

  it('a setting one marketplace lacks is needed; several marketplaces give the marketplace', () => {
    expect(neededSettings(partial)).toEqual(['fulfillment_policy_id']);
    expect(neededSettings(FAN)).toEqual([]);
    expect(neededSettings({ ...FAN, per_marketplace: { EBAY_GB: { ...POLICIES } } })).toEqual([]);
  });

  it('the error names the marketplaces that lack it, and their own ways to give it', async () => {
    const error = await requireSettings(source([draft(2, { sku: 'A' })]), partial).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissingSettingsError);
    expect((error as Error).message).toContain('fulfillment_policy_id for EBAY_GB: defaults.per_marketplace.EBAY_GB.fulfillment_policy_id, defaults.fulfillment_policy_id (for every marketplace), or a fulfillment_policy_id column');
    const { message } = wordError(error as MissingSettingsError);
    expect(message).toContain('fulfillment_policy_id for EBAY_GB is not set, and the one row of cat.csv has no value for it');
    expect(message).toContain(`${marketplaceEnv('EBAY_GB', 'fulfillment_policy_id')}=<id>`);
    expect(message).toContain('`listings config set fulfillment_policy_id <id> --marketplace EBAY_GB`');
    // A column in the rows is still enough.
    await expect(requireSettings(source([draft(2, { sku: 'A', fulfillment_policy_id: 'F' })]), partial)).resolves.toBeDefined();
  });
});

describe('config: several marketplaces and their sections', () => {
  it('the marketplace setting takes a comma-separated list (spaces and repeats dropped)', () => {
    const { values } = resolveSettings({ flags: { marketplace: ' EBAY_US, EBAY_GB ,EBAY_US' }, env: {}, profile: {} });
    expect(values.marketplace).toBe('EBAY_US,EBAY_GB');
    expect(splitMarketplaces(values.marketplace)).toEqual(['EBAY_US', 'EBAY_GB']);
    expect(() => resolveSettings({ flags: { marketplace: 'EBAY_US,,EBAY_GB' }, env: {}, profile: {} })).toThrow(ConfigError);
  });

  it.each<[string, Partial<MarketplaceLayers>, string | undefined, string | undefined, boolean | undefined]>([
    ['nothing', {}, undefined, undefined, undefined],
    ['the general profile value', { profile: { fulfillment_policy_id: 'P-ALL' } }, 'P-ALL', 'profile', false],
    ['the section beats the general profile value', { profile: { fulfillment_policy_id: 'P-ALL' }, sections: { EBAY_GB: { fulfillment_policy_id: 'P-GB' } } }, 'P-GB', 'profile', true],
    ['the general env beats the section', { env: { LISTINGS_FULFILLMENT_POLICY_ID: 'E-ALL' }, sections: { EBAY_GB: { fulfillment_policy_id: 'P-GB' } } }, 'E-ALL', 'env', false],
    ['the marketplace\'s env beats the general env', { env: { LISTINGS_FULFILLMENT_POLICY_ID: 'E-ALL', LISTINGS_EBAY_GB_FULFILLMENT_POLICY_ID: 'E-GB' } }, 'E-GB', 'env', true],
    ['a flag beats everything, for every marketplace', { flags: { fulfillment_policy_id: 'FLAG' }, env: { LISTINGS_EBAY_GB_FULFILLMENT_POLICY_ID: 'E-GB' }, sections: { EBAY_GB: { fulfillment_policy_id: 'P-GB' } } }, 'FLAG', 'flag', false],
    ['an empty variable is unset', { env: { LISTINGS_EBAY_GB_FULFILLMENT_POLICY_ID: '' }, sections: { EBAY_GB: { fulfillment_policy_id: 'P-GB' } } }, 'P-GB', 'profile', true],
  ])('precedence for EBAY_GB: %s', (_name, layers, value, source, own) => {
    const resolved = resolveMarketplaceSettings({ flags: {}, env: {}, profile: {}, sections: {}, ...layers }, 'ebay_gb');
    expect(resolved.fulfillment_policy_id?.value).toBe(value);
    expect(resolved.fulfillment_policy_id?.source).toBe(source);
    expect(resolved.fulfillment_policy_id?.own).toBe(own);
  });

  it('a bad value names the marketplace and where it came from; marketplaces are found in the environment', () => {
    expect(() => resolveMarketplaceSettings({ flags: {}, env: { LISTINGS_EBAY_GB_CONDITION: ' ' }, profile: {}, sections: {} }, 'EBAY_GB')).toThrow(/condition for EBAY_GB from LISTINGS_EBAY_GB_CONDITION/);
    expect(envMarketplaces({ LISTINGS_EBAY_GB_CONDITION: 'NEW', LISTINGS_EBAY_MOTORS_US_RETURN_POLICY_ID: 'r', LISTINGS_CONDITION: 'NEW', LISTINGS_FULFILLMENT_POLICY_ID: 'f', LISTINGS_EBAY_DE_PAYMENT_POLICY_ID: '' })).toEqual(['EBAY_GB', 'EBAY_MOTORS_US']);
  });

  it('the store keeps sections beside the settings, by upper-case name, and removes an emptied one', async () => {
    const dir = tempDir();
    const store = await ProfileStore.open({ LISTINGS_CONFIG_DIR: dir });
    await store.set('default', 'fulfillment_policy_id', 'F-ALL');
    await store.setSection('default', 'ebay_gb', 'fulfillment_policy_id', 'F-GB');
    await store.setSection('default', 'EBAY_GB', 'condition', 'NEW');
    const again = await ProfileStore.open({ LISTINGS_CONFIG_DIR: dir });
    expect(again.values('default')).toEqual({ fulfillment_policy_id: 'F-ALL' });
    expect(again.sections('default')).toEqual({ EBAY_GB: { fulfillment_policy_id: 'F-GB', condition: 'NEW' } });
    expect(await again.unsetSection('default', 'EBAY_GB', 'condition')).toBe(true);
    expect(await again.unsetSection('default', 'EBAY_GB', 'fulfillment_policy_id')).toBe(true);
    expect(await again.unsetSection('default', 'EBAY_GB', 'fulfillment_policy_id')).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ profiles: { default: { fulfillment_policy_id: 'F-ALL' } } });
  });
});

describe('the run\'s target and summary', () => {
  it('a target names all its marketplaces, in any order', () => {
    const a = runTarget({ baseUrl: 'https://api.example.test', apiKey: 'k', marketplace: 'EBAY_US,EBAY_GB', shape: 'flat' });
    const b = runTarget({ baseUrl: 'https://api.example.test', apiKey: 'k', marketplace: 'EBAY_GB,EBAY_US', shape: 'flat' });
    expect(a.marketplace).toBe('EBAY_GB,EBAY_US');
    expect(sameTarget(a, b)).toBe(true);
    expect(sameTarget(a, runTarget({ baseUrl: 'https://api.example.test', apiKey: 'k', marketplace: 'EBAY_US', shape: 'flat' }))).toBe(false);
    expect(sandboxTarget('EBAY_US', 'flat').marketplace).toBe('EBAY_US');
  });

  it('the summary breaks counts down by marketplace only when there is more than one', () => {
    const row = (marketplace: string | undefined, outcome: RowOutcome['outcome']): RowOutcome => ({ index: 0, location: { source: 'c' }, outcome, attempts: 0, durationMs: 0, ...(marketplace === undefined ? {} : { marketplace }) });
    const one = new SummaryCounter();
    for (const o of [row('EBAY_US', 'published'), row(undefined, 'invalid')]) one.add(o);
    expect(one.summary(1, []).by_marketplace).toBeUndefined();
    const several = new SummaryCounter();
    for (const o of [row('EBAY_US', 'published'), row('EBAY_GB', 'published'), row('EBAY_GB', 'failed'), row(undefined, 'invalid'), row('EBAY_US', 'skipped')]) several.add(o);
    const summary = several.summary(1, []);
    expect(summary.by_marketplace).toEqual({
      '(none)': { rows: 1, published: 0, failed: 0, invalid: 1, skipped: 0, not_attempted: 0, validated: 0, enqueued: 0 },
      EBAY_GB: { rows: 2, published: 1, failed: 1, invalid: 0, skipped: 0, not_attempted: 0, validated: 0, enqueued: 0 },
      EBAY_US: { rows: 2, published: 1, failed: 0, invalid: 0, skipped: 1, not_attempted: 0, validated: 0, enqueued: 0 },
    });
    expect(summary.rows).toBe(5);
  });
});

describe('--retry-failed: a listing is (place, SKU, marketplace)', () => {
  const at = (line: number, marketplace: string | undefined, outcome: RowOutcome['outcome']): RowOutcome => ({
    index: 0,
    location: { source: 'c.csv', line },
    sku: `S${line}`,
    outcome,
    attempts: 0,
    durationMs: 0,
    ...(marketplace === undefined ? {} : { marketplace }),
  });
  const row = (line: number, marketplace: string) => ({ location: { source: 'c.csv', line }, sku: `S${line}`, marketplace });

  it.each(['csv', 'json', 'ndjson'])('%s: retries the failed marketplace of a row, not its published twin, and the marketplaces a stopped run never reached', async (format) => {
    const path = join(tempDir(), `report.${format}`);
    const report = await openReport(path);
    const counter = new SummaryCounter();
    // Row 2 published on US and failed on GB; row 3 was cut after its US listing.
    for (const o of [at(2, 'EBAY_US', 'published'), at(2, 'EBAY_GB', 'failed'), at(3, 'EBAY_US', 'published')]) {
      counter.add(o);
      await report.write(o);
    }
    await report.close(counter.summary(1, [path], undefined, { complete: false, interrupted: true }));
    const selection = new RetrySelection(await readRetryRows(path), ['c.csv']);
    const chosen = [row(2, 'EBAY_US'), row(2, 'EBAY_GB'), row(3, 'EBAY_US'), row(3, 'EBAY_GB'), row(4, 'EBAY_US'), row(4, 'EBAY_GB')].map((r) => selection.selects(r));
    expect(chosen).toEqual([false, true, false, true, true, true]);
    expect([selection.matched, selection.beyondReport]).toEqual([1, 3]);
  });

  it('a report of an older version (no marketplace) matches on place and SKU alone', async () => {
    const path = join(tempDir(), 'old.csv');
    writeFileSync(path, 'source,line,sku,outcome\nc.csv,2,S2,failed\nc.csv,3,S3,published\n');
    const selection = new RetrySelection(await readRetryRows(path), ['c.csv']);
    expect([row(2, 'EBAY_US'), row(2, 'EBAY_GB'), row(3, 'EBAY_US'), row(3, 'EBAY_GB')].map((r) => selection.selects(r))).toEqual([true, true, false, false]);
  });
});
