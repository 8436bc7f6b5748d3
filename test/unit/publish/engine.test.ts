import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ListingsClient } from '../../../src/client/listings-client.js';
import { publishRows } from '../../../src/publish/engine.js';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import type { PreparedRow } from '../../../src/prepare/types.js';
import { RetryBudget } from '../../../src/publish/retry-budget.js';
import type { RetryPolicy } from '../../../src/publish/retry-policy.js';
import { contentHash } from '../../../src/publish/idempotency.js';
import { ApiError } from '../../../src/errors.js';
import { inShard } from '../../../src/publish/shard.js';
import { ListingState } from '../../../src/publish/listing-state.js';
import { ProgressDisplay } from '../../../src/cli/progress.js';
import { collect } from '../../helpers/sources-collect.js';

/** What the test server answers to one request: a status, optional headers, and a delay; or 'hang'. */
type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';
interface Seen {
  sku: string;
  key: string | undefined;
  at: number;
}

const servers: { close(): void; closeAllConnections(): void }[] = [];
const clients: ListingsClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A tiny listing service on 127.0.0.1:0 whose answers the test decides, recording every request it got. */
async function startServer(answer: (sku: string, attempt: number) => Answer) {
  const seen: Seen[] = [];
  const attempts = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const sku = (JSON.parse(body) as { sku: string }).sku;
      const attempt = (attempts.get(sku) ?? 0) + 1;
      attempts.set(sku, attempt);
      seen.push({ sku, key: req.headers['idempotency-key'] as string | undefined, at: Date.now() });
      const decided = answer(sku, attempt);
      if (decided === 'hang') return;
      const send = (): void => {
        res.writeHead(decided.status, { 'content-type': 'application/json', ...decided.headers });
        res.end(decided.status < 300 ? JSON.stringify({ sku, status: 'ready', title: `Title ${sku}`, item_specifics: [] }) : JSON.stringify({ message: `no ${sku}` }));
      };
      if (decided.delayMs) setTimeout(send, decided.delayMs);
      else send();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new ListingsClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'test-key-123', connections: 16, timeoutMs: 5_000 });
  clients.push(client);
  return { client, seen };
}

function readyRow(i: number, extra = ''): PreparedRow {
  const sku = `SKU-${i}`;
  return {
    kind: 'ready',
    location: { source: 'catalog.csv', line: i + 2 },
    sku,
    request: { sku, marketplace: 'EBAY_US', overrides: { condition: `NEW${extra}` } },
  };
}

async function* rowsOf(count: number, make: (i: number) => PreparedRow = (i) => readyRow(i)): AsyncGenerator<PreparedRow> {
  for (let i = 0; i < count; i++) yield await Promise.resolve(make(i));
}

function countBy(outcomes: RowOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
  return counts;
}

function expectInOrder(outcomes: RowOutcome[], rows: number): void {
  expect(outcomes.map((o) => o.index)).toEqual(Array.from({ length: rows }, (_, i) => i));
}

/** A clock whose time moves only when the test sets `time.now`; its timers wait in `time.timers` for the test to run. */
function fakeClock(start: number) {
  const time = { now: start, timers: [] as { at: number; run: () => void }[] };
  const clock = {
    now: () => time.now,
    setTimeout: (run: () => void, ms: number) => time.timers.push({ at: time.now + ms, run }),
    clearTimeout: () => undefined,
    random: () => 0.5,
  };
  return { time, clock };
}

const fast: RetryPolicy = { maxAttempts: 5, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 60_000, maxPushbacks: 30 };

describe('publishRows', () => {
  it('yields one outcome per row, in input order, though answers come back out of order', async () => {
    const { client, seen } = await startServer(() => ({ status: 201, delayMs: Math.floor(Math.random() * 6) }));
    const run = publishRows(rowsOf(3000), { sender: client, concurrency: 16 });
    const outcomes = await collect(run);
    expectInOrder(outcomes, 3000);
    expect(countBy(outcomes)).toEqual({ published: 3000 });
    expect(new Set(seen.map((s) => s.sku)).size).toBe(3000);
    expect(seen).toHaveLength(3000);
    expect(outcomes[17]).toMatchObject({ sku: 'SKU-17', location: { line: 19 }, httpStatus: 201, listingStatus: 'ready', title: 'Title SKU-17', attempts: 1 });
    expect(run.end).toEqual({ kind: 'completed' });
  });

  it('retries 503, 429 and dropped answers with the same Idempotency-Key; never retries a 400', async () => {
    const { client, seen } = await startServer((sku, attempt) => {
      const n = Number(sku.slice(4));
      if (n % 10 === 3 && attempt === 1) return { status: 503 };
      if (n % 50 === 5 && attempt < 3) return { status: 429 };
      if (n % 10 === 7) return { status: 400 };
      return { status: 201 };
    });
    const rows = rowsOf(200, (i) => (i % 50 === 9 ? { kind: 'invalid', location: { source: 'catalog.csv', line: i + 2 }, sku: `SKU-${i}`, issues: [{ path: 'marketplace', message: 'is required' }] } : readyRow(i)));
    const outcomes = await collect(publishRows(rows, { sender: client, retryPolicy: fast }));
    expectInOrder(outcomes, 200);
    expect(countBy(outcomes)).toEqual({ published: 176, failed: 20, invalid: 4 });
    expect(outcomes[3]).toMatchObject({ outcome: 'published', attempts: 2 });
    expect(outcomes[5]).toMatchObject({ outcome: 'published', attempts: 3 });
    expect(outcomes[7]).toMatchObject({ outcome: 'failed', attempts: 1, httpStatus: 400, reason: 'HTTP 400 is not retried', error: 'HTTP 400 Bad Request: no SKU-7' });
    expect(outcomes[9]).toMatchObject({ outcome: 'invalid', error: 'marketplace: is required' });
    expect(seen.filter((s) => s.sku === 'SKU-7')).toHaveLength(1);
    const keysOf5 = new Set(seen.filter((s) => s.sku === 'SKU-5').map((s) => s.key));
    expect(keysOf5.size).toBe(1);
    const body = JSON.stringify(readyRow(5).kind === 'ready' ? (readyRow(5) as Extract<PreparedRow, { kind: 'ready' }>).request : {});
    expect([...keysOf5][0]).toBe(`lst-${contentHash(body)}`);
  });

  it('stops at the first 401: the first window of requests (4) failed, every other row not_attempted', async () => {
    const { client, seen } = await startServer(() => ({ status: 401 }));
    const run = publishRows(rowsOf(500), { sender: client });
    const outcomes = await collect(run);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.length).toBeLessThanOrEqual(4);
    expectInOrder(outcomes, 500);
    expect(outcomes[0]).toMatchObject({ outcome: 'failed', httpStatus: 401, reason: 'API key rejected' });
    expect(outcomes.filter((o) => o.outcome === 'failed')).toHaveLength(seen.length);
    expect(outcomes.slice(seen.length).every((o) => o.outcome === 'not_attempted' && o.reason === 'service unusable')).toBe(true);
    expect(run.end.kind).toBe('systemic');
  });

  it('stops reading at once when interrupted while it reads the rest after a systemic failure', async () => {
    const { client } = await startServer(() => ({ status: 403 }));
    const stop = new AbortController();
    let read = 0;
    async function* slow() {
      for (let i = 0; i < 10_000; i++) {
        read++;
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1));
        yield readyRow(i);
      }
    }
    const run = publishRows(slow(), { sender: client, stop: stop.signal });
    const outcomes: RowOutcome[] = [];
    for await (const outcome of run) {
      outcomes.push(outcome);
      if (outcomes.length === 20) stop.abort();
    }
    expect(run.end.kind).toBe('systemic');
    expect(read).toBeLessThan(100);
    expect(outcomes).toHaveLength(read);
  });

  it('stops once maxErrors rows have failed', async () => {
    const { client, seen } = await startServer((sku) => (Number(sku.slice(4)) >= 20 ? { status: 422 } : { status: 201 }));
    const run = publishRows(rowsOf(1000), { sender: client, maxErrors: 5 });
    const outcomes = await collect(run);
    expectInOrder(outcomes, outcomes.length);
    const counts = countBy(outcomes);
    expect(counts.published).toBe(20);
    // The window was open when failures started: the requests already in flight still finish, and count.
    expect(counts.failed).toBeGreaterThanOrEqual(5);
    expect(counts.failed).toBeLessThanOrEqual(5 + 16);
    expect(seen.length).toBe(20 + counts.failed!);
    expect(run.end).toMatchObject({ kind: 'max-errors' });
    expect(outcomes.at(-1)).toMatchObject({ outcome: 'not_attempted', reason: 'max errors reached' });
  });

  it('spends at most the retry budget on a service that always fails with 500, then stops as unusable', async () => {
    const { client, seen } = await startServer(() => ({ status: 500 }));
    const run = publishRows(rowsOf(400), { sender: client, retryPolicy: fast, retryBudget: new RetryBudget({ minRetries: 10, ratio: 0.1 }) });
    const outcomes = await collect(run);
    const firstAttempts = new Set(seen.map((s) => s.sku)).size;
    expect(seen.length - firstAttempts).toBeLessThanOrEqual(10 + Math.floor(0.1 * firstAttempts));
    expect(run.end.kind).toBe('systemic');
    // The rest of the input is still read, each row not_attempted, so the outcomes cover the whole input.
    expectInOrder(outcomes, 400);
    expect(countBy(outcomes).not_attempted).toBeGreaterThan(200);
    expect(countBy(outcomes).published).toBeUndefined();
  });

  it('a service that is always 503 is busy, not failing: no retry budget spent, it gives up only when nothing is accepted for giveUpAfterMs', async () => {
    const { client, seen } = await startServer(() => ({ status: 503 }));
    const budget = new RetryBudget({ minRetries: 0, ratio: 0 });
    const started = Date.now();
    const run = publishRows(rowsOf(300), { sender: client, retryPolicy: fast, retryBudget: budget, giveUpAfterMs: 1_500 });
    const outcomes = await collect(run);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(budget.spent).toBe(0);
    // Rows were retried although the budget allows none: pushback does not spend it.
    expect(seen.length).toBeGreaterThan(new Set(seen.map((s) => s.sku)).size);
    expect(run.end).toMatchObject({ kind: 'systemic', reason: expect.stringMatching(/^nothing accepted for \d s$/) as unknown });
    expectInOrder(outcomes, 300);
    expect(countBy(outcomes).published).toBeUndefined();
    expect(countBy(outcomes).not_attempted).toBeGreaterThan(250);
    // Nothing accepted: every send is held (1 s, then 2 s...), so a few rounds of requests, far fewer than rows.
    expect(run.stats().overloaded).toBe(seen.length);
    expect(seen.length).toBeLessThan(40);
  });

  it('a service that goes away and comes back busy (503 to the probe) is published to the end, not left waiting', async () => {
    // Up for 100 requests, then closed (connections refused) for 300 ms, then back on the same port answering its
    // first 3 requests 503. The breaker opens, probes after 1 s, and the probe's 503 must close it again.
    let served = 0;
    let sinceBack = 0;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const back = down !== undefined;
        if (back && ++sinceBack <= 3) {
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"warming up"}');
          return;
        }
        const { sku } = JSON.parse(body) as { sku: string };
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sku, status: 'ready', title: 't', item_specifics: [] }));
        if (!back && ++served === 100) {
          down = Date.now();
          first.closeAllConnections();
          first.close(() => setTimeout(() => second.listen(port, '127.0.0.1'), 300));
        }
      });
    };
    let down: number | undefined;
    const first = createServer(handler);
    const second = createServer(handler);
    servers.push(first, second);
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
    const { port } = first.address() as AddressInfo;
    const client = new ListingsClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'test-key-123', connections: 16, timeoutMs: 5_000 });
    clients.push(client);
    const outcomes = await collect(publishRows(rowsOf(400), { sender: client, concurrency: 8, retryPolicy: fast, retryBudget: new RetryBudget() }));
    expect(down).toBeDefined();
    expect(sinceBack).toBeGreaterThan(3);
    expect(countBy(outcomes)).toEqual({ published: 400 });
  }, 20_000);

  it('holds every request back for the Retry-After of a 429 while nothing has been accepted', async () => {
    const { client, seen } = await startServer((sku, attempt) => (sku === 'SKU-0' && attempt === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 201 }));
    const outcomes = await collect(publishRows(rowsOf(3), { sender: client, retryPolicy: fast, concurrency: 1 }));
    expect(countBy(outcomes)).toEqual({ published: 3 });
    expect(outcomes[0]!.durationMs).toBeGreaterThanOrEqual(1000);
    const first = seen[0]!.at;
    expect(seen.slice(1).every((s) => s.at - first >= 990)).toBe(true);
  });

  it('keeps to --rate: requests started per second never exceed it beyond the burst', async () => {
    const { client, seen } = await startServer(() => ({ status: 201 }));
    const started = Date.now();
    const outcomes = await collect(publishRows(rowsOf(40), { sender: client, concurrency: 16, rate: 50 }));
    expect(countBy(outcomes)).toEqual({ published: 40 });
    // A burst of 5 (a tenth of a second), then 50 a second: the 40th request leaves after about 0.7 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(650);
    const first = seen[0]!.at;
    const inFirstHalfSecond = seen.filter((s) => s.at - first < 500).length;
    expect(inFirstHalfSecond).toBeLessThanOrEqual(5 + 26);
  });

  it('sends nothing for the Retry-After of a 429 (fake clock): the retry leaves 2 s later, not before', async () => {
    const { time, clock } = fakeClock(1_000_000);
    const { timers } = time;
    const sent: { sku: string; at: number }[] = [];
    const sender = {
      postListingJson(body: string) {
        const sku = (JSON.parse(body) as { sku: string }).sku;
        sent.push({ sku, at: time.now });
        if (sent.length === 1) return Promise.reject(new ApiError(429, 'HTTP 429 Too Many Requests', {}, '2'));
        return Promise.resolve({ status: 201, listing: { sku, status: 'ready', title: sku, item_specifics: [] } });
      },
    };
    const run = collect(publishRows(rowsOf(2), { sender, clock }));
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 5; i++) await settle();
    expect(sent).toEqual([{ sku: 'SKU-0', at: 1_000_000 }]);
    // Nothing else was sent while the service asked to wait (the other row too); the one timer is the pause.
    const timer = timers.at(-1)!;
    expect(timer.at - 1_000_000).toBeGreaterThanOrEqual(2_000);
    time.now = timer.at;
    timer.run();
    const outcomes = await run;
    expect(sent.map((s) => s.at - 1_000_000)).toEqual([0, timer.at - 1_000_000, timer.at - 1_000_000]);
    expect(outcomes.map((o) => [o.sku, o.outcome, o.attempts])).toEqual([
      ['SKU-0', 'published', 2],
      ['SKU-1', 'published', 1],
    ]);
    expect(outcomes[0]!.durationMs).toBeGreaterThanOrEqual(2_000);
  });

  it('on stop: reads no more, lets in-flight requests finish, and reports rows read but not sent as not_attempted', async () => {
    const { client, seen } = await startServer(() => ({ status: 201, delayMs: 30 }));
    const stop = new AbortController();
    let read = 0;
    async function* counted() {
      for (let i = 0; i < 100_000; i++) {
        read++;
        yield await Promise.resolve(readyRow(i));
      }
    }
    const run = publishRows(counted(), { sender: client, concurrency: 4, stop: stop.signal });
    const outcomes: RowOutcome[] = [];
    for await (const outcome of run) {
      outcomes.push(outcome);
      if (outcomes.length === 10) stop.abort();
    }
    expect(run.end).toEqual({ kind: 'interrupted' });
    expect(outcomes).toHaveLength(read);
    expectInOrder(outcomes, read);
    const counts = countBy(outcomes);
    expect(counts.published).toBe(seen.length);
    expect((counts.published ?? 0) + (counts.not_attempted ?? 0)).toBe(read);
    expect(read).toBeLessThan(100);
  });

  it('on abandon: in-flight requests are cut off and fail as interrupted', async () => {
    const { client } = await startServer((sku) => (sku === 'SKU-0' ? { status: 201 } : 'hang'));
    const stop = new AbortController();
    const abandon = new AbortController();
    const run = publishRows(rowsOf(50), { sender: client, concurrency: 4, stop: stop.signal, abandon: abandon.signal });
    const started = Date.now();
    setTimeout(() => {
      stop.abort();
      abandon.abort();
    }, 200);
    const outcomes = await collect(run);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(outcomes[0]).toMatchObject({ outcome: 'published' });
    expect(outcomes[1]).toMatchObject({ outcome: 'failed', reason: 'interrupted', attempts: 1 });
    expect(outcomes.slice(1).every((o) => o.outcome !== 'published')).toBe(true);
  });

  it('pauses reading while the reorder buffer is full (memory stays flat)', async () => {
    const { client } = await startServer((sku) => ({ status: 201, delayMs: sku === 'SKU-0' ? 300 : 0 }));
    let read = 0;
    async function* counted() {
      for (let i = 0; i < 5000; i++) {
        read++;
        yield await Promise.resolve(readyRow(i));
      }
    }
    const run = publishRows(counted(), { sender: client, concurrency: 8, reorderBuffer: 64 });
    const iterator = run[Symbol.asyncIterator]();
    const first = iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Row 0 is still waiting for its answer: no more than the buffer (plus the row being read) has been read.
    expect(read).toBeLessThanOrEqual(65);
    expect((await first).value).toMatchObject({ index: 0, outcome: 'published' });
    let count = 1;
    while (!(await iterator.next()).done) count++;
    expect(count).toBe(5000);
  });

  it('answers that arrive together each send the next request before any row is read (reading is off that path)', async () => {
    let read = 0;
    async function* counted() {
      for (let i = 0; i < 40; i++) {
        read++;
        yield await Promise.resolve(readyRow(i));
      }
    }
    const answers: (() => void)[] = [];
    const readAtSend: number[] = [];
    const sender = {
      postListingJson(body: string) {
        readAtSend.push(read);
        const sku = (JSON.parse(body) as { sku: string }).sku;
        return new Promise<{ status: number; listing: { sku: string; status: string; title: string; item_specifics: string[] } }>((resolve) =>
          answers.push(() => resolve({ status: 201, listing: { sku, status: 'ready', title: sku, item_specifics: [] } })),
        );
      },
    };
    const run = collect(publishRows(counted(), { sender, concurrency: 8 }));
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    // A fixed limit of 8: the first eight leave at once.
    await settle();
    expect(answers).toHaveLength(8);
    const before = readAtSend.length;
    // Eight answers in one go: eight new requests, all sent from rows read ahead of time.
    for (const answer of answers.splice(0)) answer();
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const burst = readAtSend.slice(before);
    expect(burst).toHaveLength(8);
    expect(new Set(burst).size).toBe(1);
    while (answers.length > 0 || readAtSend.length < 40) {
      await settle();
      for (const answer of answers.splice(0)) answer();
    }
    const outcomes = await run;
    expect(countBy(outcomes)).toEqual({ published: 40 });
    expectInOrder(outcomes, 40);
  });

  it('a window that grows by hundreds is filled 64 rows at a time, the I/O at hand run between (answers are timed when they come)', async () => {
    const sent: number[] = [];
    const answers: (() => void)[] = [];
    const sender = {
      postListingJson(body: string) {
        const sku = (JSON.parse(body) as { sku: string }).sku;
        sent.push(Number(sku.slice(4)));
        return new Promise<{ status: number; listing: { sku: string; status: string; title: string; item_specifics: string[] } }>((resolve) =>
          answers.push(() => resolve({ status: 201, listing: { sku, status: 'ready', title: sku, item_specifics: [] } })),
        );
      },
    };
    // A fixed window of 300 and rows always at hand: before, all 300 left in one go.
    const run = collect(publishRows(rowsOf(300), { sender, concurrency: 300 }));
    const sentAtEachTurn: number[] = [];
    while (sent.length < 300) {
      await new Promise((resolve) => setImmediate(resolve));
      sentAtEachTurn.push(sent.length);
    }
    expect(sentAtEachTurn.length).toBeGreaterThanOrEqual(4);
    for (const [turn, count] of sentAtEachTurn.entries()) expect(count - (sentAtEachTurn[turn - 1] ?? 0)).toBeLessThanOrEqual(80);
    for (const answer of answers.splice(0)) answer();
    const outcomes = await run;
    expect(countBy(outcomes)).toEqual({ published: 300 });
    expectInOrder(outcomes, 300);
  });

  it("opens a slow service's next start-up round of connections while its answers are awaited, for the rows at hand only", async () => {
    const { time, clock } = fakeClock(1_000_000);
    // Until the engine has sent all it will before the next answers: rows are read a batch a turn, so until 20 turns
    // in a row change nothing.
    let changes = 0;
    const settle = async () => {
      for (let quiet = 0, seen = -1; quiet < 20; quiet = seen === changes ? quiet + 1 : 0) {
        seen = changes;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    /**
     * Runs `rows` rows against a service answering after `latencyMs`, a round trip at a time: per round, the requests
     * in flight and the connections last asked for while they were out (undefined: none).
     */
    const runAt = async (rows: number, latencyMs: number) => {
      const answers: (() => void)[] = [];
      let prepared: number | undefined;
      const sender = {
        postListingJson(body: string) {
          changes++;
          const sku = (JSON.parse(body) as { sku: string }).sku;
          return new Promise<{ status: number; listing: { sku: string; status: string; title: string; item_specifics: string[] } }>((resolve) =>
            answers.push(() => resolve({ status: 201, listing: { sku, status: 'ready', title: sku, item_specifics: [] } })),
          );
        },
        prepareConnections(count: number) {
          changes++;
          prepared = count;
        },
      };
      const run = collect(publishRows(rowsOf(rows), { sender, clock }));
      const rounds: { inFlight: number; prepared: number | undefined }[] = [];
      for (await settle(); answers.length > 0; await settle()) {
        rounds.push({ inFlight: answers.length, prepared });
        prepared = undefined;
        time.now += latencyMs;
        for (const answer of answers.splice(0)) answer();
      }
      expect(countBy(await run)).toEqual({ published: rows });
      return rounds;
    };
    // 2 s an answer: the window grows x8 a round trip (4, 32, 256, then the rest). Nothing is opened ahead before the
    // first answers (the service's speed is unknown); then, with 32 in flight, the next round's 256; with 256, the
    // last round's 1,000 - 292 rows besides (964 in all), not the 2,048 it could grow to.
    const slow = await runAt(1000, 2000);
    expect(slow.slice(0, 3)).toEqual([
      { inFlight: 4, prepared: undefined },
      { inFlight: 32, prepared: 256 },
      { inFlight: 256, prepared: 964 },
    ]);
    // (The last round's requests leave as the answers before them come in: what they ask for counts those too.)
    expect(slow[3]?.inFlight).toBe(708);
    expect(slow[3]?.prepared ?? 0).toBeLessThanOrEqual(964);
    // 100 rows: never more than are left (96 once the first 4 are answered).
    const few = await runAt(100, 2000);
    expect(few.map((round) => round.inFlight)).toEqual([4, 32, 64]);
    expect(few[1]?.prepared).toBe(96);
    expect(few[2]?.prepared ?? 0).toBeLessThanOrEqual(96);
    // 100 ms an answer: the window doubles a round trip, and no connection is opened ahead.
    expect((await runAt(300, 100)).every((round) => round.prepared === undefined)).toBe(true);
  });

  it("times each answer from when its request was written to a connection (a sender's onWritten), not from when it was handed over", async () => {
    const sender = {
      postListingJson(body: string, options: { onWritten?: () => void }) {
        const sku = (JSON.parse(body) as { sku: string }).sku;
        return new Promise<{ status: number; listing: { sku: string; status: string; title: string; item_specifics: string[] } }>((resolve) =>
          // 150 ms waiting for a connection, then 20 ms at the service.
          setTimeout(() => {
            options.onWritten?.();
            setTimeout(() => resolve({ status: 201, listing: { sku, status: 'ready', title: sku, item_specifics: [] } }), 20);
          }, 150),
        );
      },
    };
    const answered: number[] = [];
    const outcomes = await collect(publishRows(rowsOf(4), { sender, onEvent: (event) => event.type === 'answer' && answered.push(event.ms) }));
    expect(countBy(outcomes)).toEqual({ published: 4 });
    expect(answered).toHaveLength(4);
    for (const ms of answered) {
      expect(ms).toBeGreaterThanOrEqual(15);
      expect(ms).toBeLessThan(140);
    }
  });

  it('dry run: skips by shard, resume and changed-only without a network', async () => {
    const state = new ListingState();
    const bodyOf = (i: number) => JSON.stringify((readyRow(i) as Extract<PreparedRow, { kind: 'ready' }>).request);
    state.set('EBAY_US', 'SKU-1', contentHash(bodyOf(1)));
    state.set('EBAY_US', 'SKU-2', 'something-else');
    const published = new Set([`SKU-3\u0000${contentHash(bodyOf(3))}`]);
    const shard = { index: 2, count: 3 };
    const outcomes = await collect(publishRows(rowsOf(300), { dryRun: true, changedOnly: state, alreadyPublished: published }));
    expect(outcomes[0]).toMatchObject({ outcome: 'validated', reason: 'new' });
    expect(outcomes[1]).toMatchObject({ outcome: 'skipped', reason: 'unchanged' });
    expect(outcomes[2]).toMatchObject({ outcome: 'validated', reason: 'changed' });
    expect(outcomes[3]).toMatchObject({ outcome: 'skipped', reason: 'already published' });
    expect(state.get('EBAY_US', 'SKU-2')).toBe('something-else');
    const sharded = await collect(publishRows(rowsOf(300), { dryRun: true, shard }));
    for (const o of sharded) expect(o.outcome).toBe(inShard(o.sku!, shard) ? 'validated' : 'skipped');
    const retried = await collect(publishRows(rowsOf(10), { dryRun: true, retryOnly: (row) => row.sku === 'SKU-4' }));
    expect(retried.filter((o) => o.outcome === 'validated').map((o) => o.sku)).toEqual(['SKU-4']);
    expect(retried[0]).toMatchObject({ outcome: 'skipped', reason: 'not selected for retry' });
  });

  it('updates the changed-only state only for rows the service accepted, and journals every row sent', async () => {
    const { client } = await startServer((sku) => (sku === 'SKU-2' ? { status: 400 } : { status: 201 }));
    const state = new ListingState();
    const journal: { sku: string; outcome: string }[] = [];
    const outcomes = await collect(publishRows(rowsOf(5), { sender: client, changedOnly: state, journal: { record: (e) => journal.push(e) } }));
    expect(countBy(outcomes)).toEqual({ published: 4, failed: 1 });
    expect([...state.entries()].map(([marketplace, sku]) => `${marketplace}/${sku}`).sort()).toEqual(['EBAY_US/SKU-0', 'EBAY_US/SKU-1', 'EBAY_US/SKU-3', 'EBAY_US/SKU-4']);
    expect(journal.map((e) => `${e.sku}:${e.outcome}`).sort()).toEqual(['SKU-0:published', 'SKU-1:published', 'SKU-2:failed', 'SKU-3:published', 'SKU-4:published']);
    const again = await collect(publishRows(rowsOf(5), { sender: client, changedOnly: state }));
    expect(countBy(again)).toEqual({ skipped: 4, failed: 1 });
  });

  it('ends the run with the error when recording a finished row throws, instead of waiting for ever', async () => {
    const { client } = await startServer(() => ({ status: 201 }));
    const journal = {
      record(): void {
        throw new Error('journal is closed');
      },
    };
    await expect(collect(publishRows(rowsOf(50), { sender: client, journal }))).rejects.toThrow('journal is closed');
  });

  it('reports the rows read before a source fails, then throws its error', async () => {
    async function* broken() {
      yield await Promise.resolve(readyRow(0));
      yield readyRow(1);
      throw new Error('disk on fire');
    }
    const run = publishRows(broken(), { dryRun: true });
    const outcomes: RowOutcome[] = [];
    await expect(async () => {
      for await (const o of run) outcomes.push(o);
    }).rejects.toThrow('disk on fire');
    expect(outcomes.map((o) => o.outcome)).toEqual(['validated', 'validated']);
  });
});

describe('settle order (progress and throughput count a row when its answer came)', () => {
  it('tells each outcome as it settles while an early row waits for its retry, and stamps when its answer came', async () => {
    const { time, clock } = fakeClock(0);
    let failedOnce = false;
    const sender = {
      postListingJson(body: string) {
        const sku = (JSON.parse(body) as { sku: string }).sku;
        if (sku === 'SKU-0' && !failedOnce) {
          failedOnce = true;
          return Promise.reject(new ApiError(500, 'HTTP 500 Internal Server Error', {}));
        }
        return Promise.resolve({ status: 201, listing: { sku, status: 'ready', title: sku, item_specifics: [] } });
      },
    };
    const display = await ProgressDisplay.start({ mode: 'off', readProgress: () => ({ bytesRead: 0 }), total: 50, now: () => time.now });
    const settled: number[] = [];
    const run = publishRows(rowsOf(50), {
      sender,
      clock,
      concurrency: 4,
      retryPolicy: { ...fast, baseDelayMs: 10_000, maxDelayMs: 10_000 },
      onSettled: (outcome) => {
        settled.push(outcome.index);
        display.tick(outcome);
      },
    });
    const yielded: RowOutcome[] = [];
    const done = (async () => {
      for await (const outcome of run) yielded.push(outcome);
    })();
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    time.now = 1_000;
    // Row 0 waits for its retry: nothing is released in input order, yet the 49 rows answered are counted.
    expect(yielded).toHaveLength(0);
    expect(settled).toEqual(Array.from({ length: 49 }, (_, i) => i + 1));
    expect(display.line()).toMatch(/^49\/50 rows · 98% · 49 rows\/s · ETA /);
    // The retry's timer (the backoff: half of 10 s with this random) is the only one; its time comes.
    const timer = time.timers.sort((x, y) => x.at - y.at).at(-1)!;
    expect(timer.at).toBe(5_000);
    time.now = timer.at;
    timer.run();
    await done;
    expectInOrder(yielded, 50);
    expect(settled.at(-1)).toBe(0);
    expect(yielded[0]).toMatchObject({ outcome: 'published', attempts: 2 });
    expect(yielded[0]!.settledAtMs).toBeGreaterThanOrEqual(5_000);
    expect(yielded.slice(1).map((o) => o.settledAtMs)).toEqual(Array.from({ length: 49 }, () => 0));
  });

  it('stamps every outcome, skipped, invalid and validated ones too', async () => {
    const rows = rowsOf(30, (i) => (i % 10 === 3 ? { kind: 'invalid', location: { source: 'catalog.csv', line: i + 2 }, sku: `SKU-${i}`, issues: [{ path: 'marketplace', message: 'is required' }] } : readyRow(i)));
    const settled: RowOutcome[] = [];
    const outcomes = await collect(publishRows(rows, { dryRun: true, retryOnly: (row) => row.sku !== 'SKU-5', onSettled: (o) => settled.push(o) }));
    expect(countBy(outcomes)).toEqual({ validated: 26, invalid: 3, skipped: 1 });
    expect(settled).toHaveLength(30);
    for (const o of outcomes) expect(o.settledAtMs).toBeGreaterThanOrEqual(0);
  });
});

describe('--give-up-after is kept by time, not only when a failure comes back', () => {
  /** A fake clock whose cleared timers do not run; `step` runs the earliest timer, the time set to its own. */
  function steppingClock() {
    const time = { now: 0 };
    const timers = new Map<number, { at: number; run: () => void }>();
    let ids = 0;
    const clock = {
      now: () => time.now,
      setTimeout: (run: () => void, ms: number) => {
        timers.set(++ids, { at: time.now + ms, run });
        return ids;
      },
      clearTimeout: (id: unknown) => void timers.delete(id as number),
      random: () => 0.5,
    };
    const step = (): boolean => {
      const [id, timer] = [...timers].sort(([, a], [, b]) => a.at - b.at)[0] ?? [];
      if (id === undefined || timer === undefined) return false;
      timers.delete(id);
      time.now = Math.max(time.now, timer.at);
      timer.run();
      return true;
    };
    return { time, timers, clock, step };
  }
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('an always-503 service: the run stops at giveUpAfterMs, not at the next 503 its held sends would bring, and a row in flight then ends once', async () => {
    // The sends to a service that accepts nothing are held 1 s, 2 s, 4 s...: its 503s come at 0, 1 and 3 s, the next
    // at 7 s. The give-up (4 s) was checked only when a 503 came: the run stopped at 7 s, for "nothing accepted for 7 s".
    const { time, timers, clock, step } = steppingClock();
    const sent: { sku: string; at: number }[] = [];
    let answerHung: ((error: Error) => void) | undefined;
    const sender = {
      postListingJson(body: string): Promise<never> {
        const sku = (JSON.parse(body) as { sku: string }).sku;
        sent.push({ sku, at: time.now });
        // One request the service holds on to: it is in flight when the run gives up.
        if (sku === 'SKU-1') return new Promise<never>((_resolve, reject) => (answerHung = reject));
        return Promise.reject(new ApiError(503, 'HTTP 503 Service Unavailable', {}));
      },
    };
    const events: { type: string; at: number }[] = [];
    const run = publishRows(rowsOf(50), { sender, clock, retryPolicy: fast, giveUpAfterMs: 4_000, onEvent: (event) => events.push({ type: event.type, at: time.now }) });
    const done = collect(run);
    await settle();
    while (!events.some((event) => event.type === 'stopped') && time.now < 60_000) {
      expect(step(), 'a timer is set while the run waits').toBe(true);
      await settle();
    }
    expect(events.find((event) => event.type === 'stopped')?.at).toBe(4_000);
    expect(run.end).toMatchObject({ kind: 'systemic', reason: 'nothing accepted for 4 s', error: expect.any(ApiError) as unknown });
    expect(sent.every((send) => send.at < 4_000)).toBe(true);
    expect(sent.filter((send) => send.at >= 3_000).length).toBeGreaterThan(0);
    // Nothing more is sent; the run waits only for the request still in flight, whose answer ends its row.
    const sends = sent.length;
    answerHung?.(new ApiError(503, 'HTTP 503 Service Unavailable', {}));
    const outcomes = await done;
    expect(sent).toHaveLength(sends);
    expectInOrder(outcomes, 50);
    expect(outcomes[1]).toMatchObject({ outcome: 'failed', reason: 'service unusable', attempts: 1 });
    expect(countBy(outcomes)).toEqual({ failed: expect.any(Number) as unknown, not_attempted: expect.any(Number) as unknown });
    expect(timers.size, 'no timer left behind').toBe(0);
  });

  it('a service that accepts now and then is never given up on: each acceptance moves the give-up time', async () => {
    const { time, timers, clock, step } = steppingClock();
    let acceptedAt = -Infinity;
    let busy = 0;
    const sender = {
      postListingJson(body: string) {
        const sku = (JSON.parse(body) as { sku: string }).sku;
        // One request accepted every 1.5 s at most, 503 to the others (sent again a second or two later).
        if (time.now - acceptedAt < 1_500 && ++busy) return Promise.reject(new ApiError(503, 'HTTP 503 Service Unavailable', {}));
        acceptedAt = time.now;
        return Promise.resolve({ status: 201, listing: { sku, status: 'ready', title: sku, item_specifics: [] } });
      },
    };
    const run = publishRows(rowsOf(10), { sender, clock, concurrency: 1, retryPolicy: { ...fast, baseDelayMs: 1_000, maxDelayMs: 1_000, maxPushbacks: 1_000 }, giveUpAfterMs: 4_000 });
    const done = collect(run);
    await settle();
    while (step()) await settle();
    const outcomes = await done;
    expect(run.end).toEqual({ kind: 'completed' });
    expect(countBy(outcomes), JSON.stringify(outcomes.map((o) => [o.outcome, o.reason, o.attempts]))).toEqual({ published: 10 });
    // Several times the give-up time, with 503s after the acceptances.
    expect(time.now).toBeGreaterThan(3 * 4_000);
    expect(busy).toBeGreaterThanOrEqual(5);
    expect(timers.size).toBe(0);
  });

  it('a live source gone quiet after a failure: the give-up time passes unheeded, and the next row is sent', async () => {
    // Nothing is asked of the service while the source is quiet: the run is not waiting on it, and a row that comes
    // after the give-up time is sent (and accepted), not given up on unseen.
    const { time, timers, clock, step } = steppingClock();
    const sent: string[] = [];
    const sender = {
      postListingJson(body: string) {
        const sku = (JSON.parse(body) as { sku: string }).sku;
        sent.push(sku);
        if (sku === 'SKU-0') return Promise.reject(new ApiError(503, 'HTTP 503 Service Unavailable', {}));
        return Promise.resolve({ status: 201, listing: { sku, status: 'ready', title: sku, item_specifics: [] } });
      },
    };
    let resume: (() => void) | undefined;
    async function* quiet(): AsyncGenerator<PreparedRow> {
      yield readyRow(0);
      await new Promise<void>((resolve) => (resume = resolve));
      yield readyRow(1);
    }
    const run = publishRows(quiet(), { sender, clock, live: true, retryPolicy: { ...fast, maxPushbacks: 1 }, giveUpAfterMs: 4_000 });
    const done = collect(run);
    await settle();
    // Row 0's 503 fails it (one pushback allowed); then only the give-up timer is left, and rings unheeded.
    while (step()) await settle();
    expect(time.now).toBeGreaterThanOrEqual(4_000);
    expect(run.end).toEqual({ kind: 'completed' });
    resume?.();
    const outcomes = await done;
    expect(sent).toEqual(['SKU-0', 'SKU-1']);
    expect(outcomes.map((o) => o.outcome)).toEqual(['failed', 'published']);
    expect(run.end).toEqual({ kind: 'completed' });
    expect(timers.size).toBe(0);
  });

});
