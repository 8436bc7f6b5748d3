import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import kafkajs from 'kafkajs';
import type { Draft } from '../../../src/catalog/types.js';
import { openCatalogs } from '../../../src/catalog/open-catalog.js';
import { createDraftsCheck } from '../../../src/run/checked-drafts.js';
import { createPreparer } from '../../../src/prepare/preparer.js';
import type { ListingDefaults, PreparedRow } from '../../../src/prepare/types.js';
import { stringifyJson } from '../../../src/json-number.js';
import { enqueueListings, type ListingProducer } from '../../../src/stream/enqueue.js';
import { LISTING_HEADER, listingKey, listingMessage, type ListingMessage } from '../../../src/stream/listing-message.js';
import { createMessageMapper, type StreamMessage } from '../../../src/stream/message-draft.js';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import { tempDir } from '../../helpers/tmp.js';

const POLICIES = { merchant_location_key: 'wh-1', fulfillment_policy_id: 'F-1', payment_policy_id: 'P-1', return_policy_id: 'R-1' };
const FLAT: ListingDefaults = { shape: 'flat', saved_defaults: false, marketplace: 'EBAY_US', condition: 'NEW', ...POLICIES };

/** The drafts `publish` would prepare from a catalog file: read, mapped, settings checked, fanned out. */
async function draftsOf(path: string, defaults: ListingDefaults): Promise<Draft[]> {
  const catalog = await openCatalogs([path]);
  const { drafts } = await createDraftsCheck(defaults)(catalog.drafts);
  const all: Draft[] = [];
  for await (const draft of drafts) all.push(draft);
  return all;
}

/** The message as a consumer receives it: key, value and headers as bytes. */
function received(message: ListingMessage, offset: number): StreamMessage {
  const headers: Record<string, Buffer> = {};
  for (const [name, value] of Object.entries(message.headers)) headers[name] = Buffer.from(value);
  return { topic: 't', partition: 0, offset, key: Buffer.from(message.key), value: Buffer.from(message.value), timestamp: 0, headers };
}

type Ready = Extract<PreparedRow, { kind: 'ready' }>;

/**
 * For each row: the request publish sends, and the request a stream worker sends for enqueue's message of it (the
 * worker configured with `worker` defaults and, to show they do not apply, renames and a preset of its own).
 */
async function roundTrip(drafts: Draft[], defaults: ListingDefaults, worker: ListingDefaults): Promise<Array<{ publish: string; stream: string; key: string; issues: string }>> {
  const publish = createPreparer(defaults);
  const mapper = createMessageMapper({ map: { sku: 'Variant SKU', title: 'Name' }, preset: 'shopify' });
  const stream = createPreparer(worker, { repeatedSkus: 'allowed' });
  const pairs = [];
  for (const [i, draft] of drafts.entries()) {
    const row = publish(draft);
    expect(row.kind, JSON.stringify(row)).toBe('ready');
    const ready = row as Ready;
    const message = listingMessage(ready.request, ready.sku);
    const mapped = await mapper(received(message, i));
    const again = stream(mapped);
    pairs.push({ publish: stringifyJson(ready.request), stream: again.kind === 'ready' ? stringifyJson(again.request) : '', key: message.key, issues: JSON.stringify(again.kind === 'invalid' ? again.issues : []) });
  }
  return pairs;
}

describe('enqueue messages: keys and partitions', () => {
  it('the key is MARKETPLACE/SKU: one listing always on one partition (murmur2, as Java clients), a SKU on two marketplaces on its own keys', () => {
    const partitioner = kafkajs.Partitioners.DefaultPartitioner();
    const partitionMetadata = [0, 1, 2, 3, 4, 5].map((partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0 }));
    const partitionOf = (key: string): number => partitioner({ topic: 't', partitionMetadata, message: { key, value: null } });
    const request = { sku: 'MUG/01', marketplace: 'EBAY_US', ...POLICIES };
    const first = listingMessage(request, 'MUG/01');
    // A SKU may hold '/': the marketplace never does, so the first '/' splits the key.
    expect(first.key).toBe('EBAY_US/MUG/01');
    expect(first.headers).toEqual({ [LISTING_HEADER]: 'listing/1' });
    // Another change of the same listing: the same key, so the same partition.
    const changed = listingMessage({ ...request, overrides: { condition: 'USED_GOOD' } }, 'MUG/01');
    expect(changed.key).toBe(first.key);
    expect(partitionOf(changed.key)).toBe(partitionOf(first.key));
    expect(listingMessage({ ...request, marketplace: 'EBAY_GB' }, 'MUG/01').key).toBe('EBAY_GB/MUG/01');
    // 6,000 listings spread over the 6 partitions.
    const counts = [0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 6000; i++) counts[partitionOf(listingKey(i % 2 === 0 ? 'EBAY_US' : 'EBAY_GB', `SKU-${i}`))]!++;
    for (const n of counts) expect(n).toBeGreaterThan(800);
  });
});

describe('enqueue messages: what a stream worker sends is what publish sends', () => {
  it('flat rows of a CSV and of a JSON catalog (numbers kept as written, defaults applied): byte-identical bodies, so one Idempotency-Key', async () => {
    const dir = tempDir('enqueue-round-trip-');
    const csv = join(dir, 'catalog.csv');
    writeFileSync(csv, 'sku,title,marketplace,images_source,overrides.condition\nA-1,Mug,,https://img.example.com/a.jpg|https://img.example.com/b.jpg,\nA/2, Spaced ,EBAY_GB,,USED_GOOD\n');
    const json = join(dir, 'catalog.json');
    writeFileSync(json, '[{"sku":"J-1","overrides":{"price":19.90,"weight":1e400,"big":9007199254740993,"condition":"NEW"}},{"sku":"J-2","merchant_location_key":"wh-9","images_source":["https://img.example.com/j.jpg"]}]');
    const drafts = [...(await draftsOf(csv, FLAT)), ...(await draftsOf(json, FLAT))];
    expect(drafts).toHaveLength(4);
    // A worker with the same settings, and one with none at all: the message carries every value it is sent with.
    for (const worker of [FLAT, { shape: 'flat', saved_defaults: false } as ListingDefaults]) {
      for (const pair of await roundTrip(drafts, FLAT, worker)) {
        expect(pair.issues).toBe('[]');
        expect(pair.stream).toBe(pair.publish);
      }
    }
    const bodies = (await roundTrip(drafts, FLAT, FLAT)).map((pair) => pair.publish);
    expect(bodies[2]).toContain('"price":19.90');
    expect(bodies[2]).toContain('"big":9007199254740993');
    expect(bodies[0]).toContain('"condition":"NEW"');
  });

  it('a fan-out to two marketplaces and the wrapped shape round-trip too', async () => {
    const dir = tempDir('enqueue-round-trip-');
    const csv = join(dir, 'catalog.csv');
    writeFileSync(csv, 'sku,title\nW-1,Blue mug\nW-2,Sand mug\n');
    const { marketplace: _one, ...general } = FLAT;
    const fanOut: ListingDefaults = { ...general, marketplaces: ['EBAY_US', 'EBAY_DE'] };
    const fanned = await roundTrip(await draftsOf(csv, fanOut), fanOut, fanOut);
    expect(fanned.map((pair) => pair.key)).toEqual(['EBAY_US/W-1', 'EBAY_DE/W-1', 'EBAY_US/W-2', 'EBAY_DE/W-2']);
    for (const pair of fanned) expect(pair.stream).toBe(pair.publish);
    const wrapped: ListingDefaults = { shape: 'wrapped', saved_defaults: false, marketplace: 'ebay' };
    const pairs = await roundTrip(await draftsOf(csv, wrapped), wrapped, wrapped);
    expect(pairs[0]?.publish).toBe('{"marketplace":"ebay","payload":{"sku":"W-1","title":"Blue mug"}}');
    for (const pair of pairs) expect(pair.stream).toBe(pair.publish);
  });

  it('a message whose key names another listing, or of a later format, is refused with the reason', async () => {
    const mapper = createMessageMapper({});
    const message = listingMessage({ sku: 'A-1', marketplace: 'EBAY_US', ...POLICIES }, 'A-1');
    const wrongKey = await mapper(received({ ...message, key: 'EBAY_GB/A-1' }, 1));
    expect(wrongKey.issues).toEqual([{ path: 'sku', message: 'the message key "EBAY_GB/A-1" does not name the listing "EBAY_US/A-1"' }]);
    const later = await mapper(received({ ...message, headers: { [LISTING_HEADER]: 'listing/2' } }, 2));
    expect(later.issues[0]?.message).toMatch(/format "listing\/2", which this version does not read/);
  });
});

/** A producer that keeps what it was sent; `failAt` (a batch number from 1) rejects. */
function recordingProducer(failAt?: number): ListingProducer & { batches: ListingMessage[][] } {
  const batches: ListingMessage[][] = [];
  return {
    batches,
    send: (messages) => {
      batches.push([...messages]);
      if (batches.length === failAt) return Promise.reject(new Error('broker gone'));
      return Promise.resolve([0]);
    },
  };
}

async function* draftsFrom(list: Draft[]): AsyncGenerator<Draft> {
  for (const item of list) yield await Promise.resolve(item);
}

function draft(i: number, values: Draft['values'] = {}): Draft {
  return { location: { source: 'c.csv', line: i + 2 }, values: { sku: `S-${i}`, ...values }, issues: [] };
}

describe('enqueueListings', () => {
  it('one outcome per row in input order; invalid rows reported and not sent; batches of at most batchSize', async () => {
    const producer = recordingProducer();
    const drafts = Array.from({ length: 10 }, (_, i) => (i === 3 ? draft(i, { images_source: ['not-a-url'] }) : i === 6 ? draft(1) : draft(i)));
    const run = enqueueListings(draftsFrom(drafts), { defaults: FLAT, producer, batchSize: 4 });
    const outcomes: RowOutcome[] = [];
    for await (const outcome of run) outcomes.push(outcome);
    expect(outcomes.map((o) => o.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Row 3's image is not a URL; row 6 repeats the listing of row 1: both invalid, as publish has them.
    expect(outcomes.map((o) => o.outcome)).toEqual(['enqueued', 'enqueued', 'enqueued', 'invalid', 'enqueued', 'enqueued', 'invalid', 'enqueued', 'enqueued', 'enqueued']);
    expect(producer.batches.map((batch) => batch.length)).toEqual([4, 4]);
    expect(producer.batches.flat().map((message) => message.key)).toEqual(['S-0', 'S-1', 'S-2', 'S-4', 'S-5', 'S-7', 'S-8', 'S-9'].map((sku) => `EBAY_US/${sku}`));
    expect(run.end).toEqual({ kind: 'completed' });
    expect(run.stats()).toMatchObject({ read: 10, enqueued: 8, batches: 2, partitions: [0] });
  });

  it('a batch Kafka refuses fails its rows; the rows after it are not attempted; the run ends on Kafka', async () => {
    const producer = recordingProducer(2);
    const run = enqueueListings(draftsFrom(Array.from({ length: 9 }, (_, i) => draft(i))), { defaults: FLAT, producer, batchSize: 2 });
    const outcomes: RowOutcome[] = [];
    for await (const outcome of run) outcomes.push(outcome);
    expect(outcomes.map((o) => o.outcome)).toEqual(['enqueued', 'enqueued', 'failed', 'failed', 'not_attempted', 'not_attempted', 'not_attempted', 'not_attempted', 'not_attempted']);
    expect(outcomes[2]).toMatchObject({ reason: 'kafka unusable', error: 'broker gone' });
    expect(run.end.kind).toBe('kafka');
  });
});
