import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasKcat, NO_KCAT, produce, startKafkaMock, type KafkaMock } from '../helpers/kafka-mock.js';
import { tempDir } from '../helpers/tmp.js';

// The built package, imported by its own name, as a user of the library would.
const lib = await import('listings-cli');

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

const DEFAULTS = { marketplace: 'EBAY_US', merchant_location_key: 'wh-1', fulfillment_policy_id: 'F-1', payment_policy_id: 'P-1', return_policy_id: 'R-1' };

describe.skipIf(!kcat)('streamListings (library): an async iterable of outcomes from a Kafka topic', () => {
  let mock: KafkaMock;
  beforeAll(async () => {
    mock = await startKafkaMock(1);
  });
  afterAll(async () => {
    await mock?.stop();
  });

  it('never has two changes of one SKU in flight, applies them in partition order, and stops cleanly on its signal', async () => {
    const sandbox = await lib.startSandbox({ port: 0, apiKey: 'stream-lib-key', latency: { min: 2, max: 25 } });
    const client = new lib.ListingsClient({ baseUrl: sandbox.url, apiKey: 'stream-lib-key', connections: 64 });
    // The real client, watched: which SKUs are in flight, and the titles of ORDER-1 in the order they reach the service.
    const inFlight = new Map<string, number>();
    let mostAtOnce = 0;
    const orderTitles: string[] = [];
    const sender = {
      async postListingJson(body: string, options: { idempotencyKey?: string }) {
        const request = JSON.parse(body) as { sku: string; overrides?: { title_hint?: string } };
        const now = (inFlight.get(request.sku) ?? 0) + 1;
        inFlight.set(request.sku, now);
        mostAtOnce = Math.max(mostAtOnce, now);
        if (request.sku === 'ORDER-1') orderTitles.push(String(request.overrides?.title_hint));
        try {
          return await client.postListingJson(body, options);
        } finally {
          inFlight.set(request.sku, (inFlight.get(request.sku) ?? 1) - 1);
        }
      },
    };
    const messages = [];
    for (let version = 0; version < 30; version++) {
      messages.push({ key: 'ORDER-1', value: JSON.stringify({ sku: 'ORDER-1', images_source: ['https://images.example.com/o.jpg'], overrides: { condition: 'NEW', title_hint: `v${version}` } }) });
      for (let other = 0; other < 10; other++) {
        const sku = `OTHER-${version}-${other}`;
        messages.push({ key: sku, value: JSON.stringify({ sku, images_source: ['https://images.example.com/x.jpg'] }) });
      }
    }
    await produce(mock.bootstrap, 'ordered', messages);
    const stop = new AbortController();
    const deadLetter = join(tempDir('stream-lib-'), 'dead.ndjson');
    const run = lib.streamListings({ source: `kafka://${mock.bootstrap}/ordered`, group: 'lib', sender, defaults: DEFAULTS, deadLetter, stop: stop.signal, sessionTimeoutMs: 6000 });
    const outcomes: string[] = [];
    const timer = setTimeout(() => stop.abort(), 60_000);
    try {
      for await (const result of run) {
        outcomes.push(result.outcome.outcome);
        expect(result.durable).toBe(true);
        if (outcomes.length === messages.length) stop.abort();
      }
    } finally {
      clearTimeout(timer);
      await client.close();
      await sandbox.close();
    }
    expect(outcomes).toHaveLength(messages.length);
    expect(new Set(outcomes)).toEqual(new Set(['published']));
    expect(run.end).toEqual({ kind: 'stopped', abandoned: false });
    expect(mostAtOnce).toBe(1);
    expect(orderTitles).toEqual(Array.from({ length: 30 }, (_, version) => `v${version}`));
    // Every version of ORDER-1 was a change of its own (its own key), not a replay of the first.
    expect(sandbox.stats().replayed).toBe(0);
    expect(run.stats()).toMatchObject({ received: messages.length, published: messages.length, deadLettered: 0, buffered: 0 });
    expect(() => readFileSync(deadLetter, 'utf8')).not.toThrow();
    expect(readFileSync(deadLetter, 'utf8')).toBe('');
  }, 90_000);
});
