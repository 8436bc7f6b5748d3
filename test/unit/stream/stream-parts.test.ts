import { describe, expect, it } from 'vitest';
import { OffsetTracker } from '../../../src/stream/offset-tracker.js';
import { KeyedGate } from '../../../src/stream/sku-gate.js';
import { parseKafkaAddress } from '../../../src/stream/kafka-address.js';
import { UsageError } from '../../../src/errors.js';
import { cliName } from '../../../src/cli/setting-flags.js';
import { createMessageMapper, type StreamMessage } from '../../../src/stream/message-draft.js';
import { MessageFeed } from '../../../src/stream/message-feed.js';
import { deadLetterOf } from '../../../src/stream/dead-letter.js';
import { Fifo } from '../../../src/publish/fifo.js';
import { ReorderBuffer } from '../../../src/publish/reorder-buffer.js';
import { LatencyHistogram } from '../../../src/stream/latency-histogram.js';
import { publishRows } from '../../../src/publish/engine.js';
import type { PreparedRow } from '../../../src/prepare/types.js';

describe('OffsetTracker: a partition is committed only up to its first message without a durable outcome', () => {
  it('holds the offset at a gap until the message before it is done, whatever order outcomes arrive in', () => {
    const tracker = new OffsetTracker();
    const tickets = [10, 11, 12, 13].map((offset) => tracker.add(0, offset));
    tracker.done(tickets[1]!);
    tracker.done(tickets[3]!);
    expect(tracker.committable()).toEqual([]);
    tracker.done(tickets[0]!);
    expect(tracker.committable()).toEqual([{ partition: 0, offset: 12 }]);
    tracker.committed([{ partition: 0, offset: 12 }]);
    expect(tracker.committable()).toEqual([]);
    tracker.done(tickets[2]!);
    expect(tracker.committable()).toEqual([{ partition: 0, offset: 14 }]);
  });

  it('keeps partitions apart, and skips offset gaps (compacted topics)', () => {
    const tracker = new OffsetTracker();
    const a = tracker.add(0, 5);
    const b = tracker.add(1, 100);
    const c = tracker.add(0, 9);
    tracker.done(c);
    tracker.done(b);
    expect(tracker.committable()).toEqual([{ partition: 1, offset: 101 }]);
    tracker.done(a);
    expect(tracker.committable()).toContainEqual({ partition: 0, offset: 10 });
  });

  it('ignores the outcomes of a partition read under an earlier assignment (no commit past a message of the new one)', () => {
    const tracker = new OffsetTracker();
    const old = tracker.add(2, 50);
    tracker.revoke(2);
    tracker.assign(2);
    const fresh = tracker.add(2, 50);
    expect(tracker.owns(fresh)).toBe(true);
    tracker.add(2, 51);
    expect(tracker.owns(old)).toBe(false);
    tracker.done(old);
    expect(tracker.committable()).toEqual([]);
    tracker.done(fresh);
    expect(tracker.committable()).toEqual([{ partition: 2, offset: 51 }]);
    expect(tracker.assigned()).toEqual([2]);
  });

  it('tells a message fetched again in the same assignment from a new one (a new assignment reads everything again)', () => {
    const tracker = new OffsetTracker();
    tracker.add(1, 20);
    tracker.add(1, 21);
    expect(tracker.isNew(1, 21)).toBe(false);
    expect(tracker.isNew(1, 22)).toBe(true);
    expect(tracker.isNew(0, 0)).toBe(true);
    tracker.revoke(1);
    tracker.assign(1);
    expect(tracker.isNew(1, 20)).toBe(true);
  });

  it('reports the lag from the committed position to the partition end', () => {
    const tracker = new OffsetTracker();
    const ticket = tracker.add(0, 0);
    tracker.add(0, 1);
    tracker.setEnd(0, 10);
    tracker.done(ticket);
    tracker.committed(tracker.committable());
    expect(tracker.positions()).toEqual([{ partition: 0, inProgress: 1, committed: 1, lag: 9 }]);
  });

  it('counts what is read but not yet done as lag: a partition read to its end and not published is not caught up', () => {
    const tracker = new OffsetTracker();
    for (let offset = 5; offset < 10; offset++) tracker.add(0, offset);
    tracker.setEnd(0, 10);
    expect(tracker.positions()).toEqual([{ partition: 0, inProgress: 5, committed: undefined, lag: 5 }]);
  });

  it('stays small on a long stream (the pending queue compacts)', () => {
    const tracker = new OffsetTracker();
    for (let offset = 0; offset < 200_000; offset++) tracker.done(tracker.add(0, offset));
    expect(tracker.committable()).toEqual([{ partition: 0, offset: 200_000 }]);
    expect(tracker.positions()[0]?.inProgress).toBe(0);
  });
});

describe('KeyedGate: one item per key at a time, the others in arrival order', () => {
  it('parks a second item of a busy key and hands it on when the first leaves', () => {
    const gate = new KeyedGate<string>();
    expect(gate.enter('A', 'a1')).toBe(true);
    expect(gate.enter('B', 'b1')).toBe(true);
    expect(gate.enter('A', 'a2')).toBe(false);
    expect(gate.enter('A', 'a3')).toBe(false);
    expect(gate.waiting).toBe(2);
    expect(gate.leave('A')).toBe('a2');
    expect(gate.enter('A', 'a4')).toBe(false);
    expect(gate.leave('A')).toBe('a3');
    expect(gate.leave('A')).toBe('a4');
    expect(gate.leave('A')).toBeUndefined();
    expect(gate.enter('A', 'a5')).toBe(true);
    expect(gate.waiting).toBe(0);
  });
});

describe('parseKafkaAddress', () => {
  it('reads brokers and topic', () => {
    expect(parseKafkaAddress('kafka://k1:9092,10.0.0.2:9093,[::1]:9094/products.v1', 'source')).toEqual({ brokers: ['k1:9092', '10.0.0.2:9093', '[::1]:9094'], topic: 'products.v1' });
  });
  it.each([
    ['http://k:9092/t', /not a kafka:\/\/ address/],
    ['kafka://k:9092', /no topic/],
    ['kafka://k:9092/', /topic name/],
    ['kafka://k/t', /not HOST:PORT/],
    ['kafka://k:70000/t', /out of range/],
    ['kafka://k:9092/a b', /topic name/],
  ])('refuses %s, saying why', (text, why) => {
    expect(() => parseKafkaAddress(text, '--dead-letter')).toThrow(why);
  });
  it('names the setting the address was given as: by its name for the library, by its flag in the CLI', () => {
    let error: UsageError | undefined;
    try {
      parseKafkaAddress('kafka://user:pw@k:9092/t', 'deadLetter');
    } catch (thrown) {
      error = thrown as UsageError;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect(error?.setting).toEqual({ key: 'deadLetter', value: 'kafka://****@k:9092/t' });
    expect(error?.message).toMatch(/^deadLetter "kafka:\/\/\*\*\*\*@k:9092\/t": a broker address holds no credentials/);
    expect(error?.wordedWith(cliName).message).toMatch(/^--dead-letter "kafka:/);
  });
});

function message(value: string | null, key: string | null = null, offset = 7): StreamMessage {
  return { topic: 'products', partition: 3, offset, key: key === null ? null : Buffer.from(key), value: value === null ? null : Buffer.from(value), timestamp: 1_700_000_000_000 };
}

describe('createMessageMapper: a message value is a catalog record; the key is the SKU', () => {
  const map = createMessageMapper({ map: { sku: 'id' } });

  it('maps a JSON object like a JSON catalog record, located at TOPIC/PARTITION#OFFSET', () => {
    const draft = map(message(JSON.stringify({ id: 'A-1', images_source: ['https://i.example/1.jpg'], overrides: { condition: 'NEW' } }), 'A-1'));
    expect(draft).toMatchObject({ location: { source: 'products/3', record: 7 }, values: { sku: 'A-1', images_source: ['https://i.example/1.jpg'], overrides: { condition: 'NEW' } }, issues: [] });
  });

  it('takes the SKU from the key when the value has none, and refuses a key naming another SKU', () => {
    expect(map(message('{}', 'K-1'))).toMatchObject({ values: { sku: 'K-1' }, issues: [] });
    expect((map(message(JSON.stringify({ id: 'V-1' }), 'K-1')) as { issues: unknown[] }).issues).toEqual([{ path: 'sku', message: 'the message key "K-1" and the sku "V-1" differ' }]);
  });

  it('turns what is not a JSON object into a located issue, and a tombstone into a skip', () => {
    expect(map(message('{"id": '))).toMatchObject({ issues: [{ path: '(record)', message: expect.stringMatching(/^the message value is not JSON/) as unknown }] });
    expect(map(message('[1,2]'))).toMatchObject({ issues: [{ path: '(record)', message: 'the message value is JSON but not an object (an array)' }] });
    expect(map(message(null, 'GONE-1'))).toMatchObject({ values: { sku: 'GONE-1' }, skip: expect.stringMatching(/tombstone/) as unknown });
    const bytes: StreamMessage = { ...message(null), value: Buffer.from([0xff, 0xfe, 0x00]) };
    expect(map(bytes)).toMatchObject({ issues: [{ path: '(record)', message: 'the message value is not UTF-8 text' }] });
  });

  it('dead letters carry the reason and the original value (base64 when it is not text)', () => {
    const bytes: StreamMessage = { ...message(null, 'B-1'), value: Buffer.from([0xff, 0x00]) };
    const letter = deadLetterOf(bytes, { index: 0, location: { source: 'products/3', record: 7 }, outcome: 'invalid', attempts: 0, durationMs: 0, error: '(record): the message value is not UTF-8 text' }, new Date(0));
    expect(letter).toMatchObject({ topic: 'products', partition: 3, offset: 7, key: 'B-1', outcome: 'invalid', value: '/wA=', value_encoding: 'base64', dead_lettered_at: '1970-01-01T00:00:00.000Z' });
    expect(letter.reason).toMatch(/not UTF-8/);
  });
});

describe('MessageFeed and the engine with a live source', () => {
  it('the engine hands on outcomes that finish while the live source waits for its next item', async () => {
    const feed = new MessageFeed<PreparedRow>();
    const ready = (sku: string): PreparedRow => ({ kind: 'ready', location: { source: 'live', record: 0 }, sku, request: { sku, marketplace: 'EBAY_US' } as never });
    // Answers come 20 ms after the request: after the engine has gone back to waiting for the source.
    const sender = {
      async postListingJson(body: string) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const { sku } = JSON.parse(body) as { sku: string };
        return { status: 201, listing: { sku, status: 'ready', title: sku, item_specifics: [] } };
      },
    };
    const run = publishRows(feed, { sender, live: true });
    const seen: string[] = [];
    const iterating = (async () => {
      for await (const outcome of run) seen.push(`${outcome.sku}:${outcome.outcome}`);
    })();
    feed.push(ready('A'));
    feed.push(ready('B'));
    // Nothing more arrives, yet both outcomes are out.
    for (let waited = 0; seen.length < 2 && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(['A:published', 'B:published']);
    feed.push(ready('C'));
    for (let waited = 0; seen.length < 3 && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    feed.close();
    await iterating;
    expect(seen).toEqual(['A:published', 'B:published', 'C:published']);
    expect(feed.push(ready('D'))).toBe(false);
  });
});

describe('ReorderBuffer not ordered (a stream)', () => {
  it('hands outcomes on as they finish, and is full at its capacity of rows not yet taken', () => {
    const buffer = new ReorderBuffer(3, false);
    const outcome = (index: number) => ({ index, location: { source: 's' }, outcome: 'published' as const, attempts: 1, durationMs: 1 });
    for (let i = 0; i < 3; i++) buffer.admit();
    expect(buffer.full).toBe(true);
    buffer.finish(2, outcome(2));
    expect(buffer.take()?.index).toBe(2);
    expect(buffer.full).toBe(false);
    expect(buffer.take()).toBeUndefined();
    buffer.finish(0, outcome(0));
    buffer.finish(1, outcome(1));
    expect([buffer.take()?.index, buffer.take()?.index]).toEqual([0, 1]);
    expect(buffer.empty).toBe(true);
  });
});

describe('Fifo', () => {
  it('keeps order across its compaction', () => {
    const fifo = new Fifo<number>();
    const out: number[] = [];
    for (let i = 0; i < 5000; i++) {
      fifo.push(i);
      if (i % 3 !== 0) out.push(fifo.take() as number);
    }
    for (let item = fifo.take(); item !== undefined; item = fifo.take()) out.push(item);
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(fifo.peek()).toBeUndefined();
  });
});

describe('LatencyHistogram', () => {
  it('gives quantiles within its bucket width, in constant memory', () => {
    const histogram = new LatencyHistogram();
    expect(histogram.quantile(0.5)).toBeUndefined();
    for (let ms = 1; ms <= 1000; ms++) histogram.add(ms);
    const p50 = histogram.quantile(0.5) ?? 0;
    const p99 = histogram.quantile(0.99) ?? 0;
    expect(p50).toBeGreaterThanOrEqual(500);
    expect(p50).toBeLessThanOrEqual(500 * 1.13);
    expect(p99).toBeGreaterThanOrEqual(990);
    expect(p99).toBeLessThanOrEqual(1000);
    histogram.add(0.2);
    expect(histogram.count).toBe(1001);
  });
});
