import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from './cli.js';
import { createTopic, waitForCommitted, type KafkaMock } from './kafka-mock.js';
import { until } from './listen-process.js';
import { csvRow, readCsvReport, skuOf, writeCatalog } from './publish.js';
import { startSandboxProcess } from './sandbox-process.js';
import { endsTotal } from './stream-process.js';
import { assignedTo, startWorker, workerSummary, type StreamWorker } from './stream-workers.js';
import { tempDir } from './tmp.js';

/** What a run of {@link enqueueToWorkers} measured. */
export interface EnqueueWorkersFigures {
  listings: number;
  invalid: number;
  enqueueMs: number;
  /** From the end of the enqueue to every listing created. */
  publishMs: number;
  /** Listings the killed worker's uncommitted messages made the others send again (answered from their key). */
  replayed: number;
}

/** Row 7 of every 500 has an image that is not a URL: invalid, reported by enqueue, never sent. */
const invalidRow = (i: number): boolean => i % 500 === 7;

async function stopAll(workers: readonly StreamWorker[]): Promise<void> {
  for (const worker of workers) worker.child.kill('SIGTERM');
  for (const worker of workers) {
    const [code] = await worker.exited;
    expect(code, worker.stderr().slice(-3000)).toBe(0);
  }
}

/**
 * `listings enqueue` of a catalog of `rows` rows to a topic of the mock, published by `listings stream` workers of one
 * group against a sandbox process. With `killAt`, 3 workers, and one (which commits only every 4 s, so it dies with
 * work done and not committed) is killed with SIGKILL once `killAt` listings exist; without, one worker. Checks that
 * every valid row is created exactly once (the sandbox's data file holds one line per creation), that the invalid
 * ones were reported and never sent, and that enqueueing the catalog again creates nothing (each message keeps the
 * Idempotency-Key of its content).
 */
export async function enqueueToWorkers(mock: KafkaMock, topic: string, rows: number, killAt: number | undefined, timeoutMs: number): Promise<EnqueueWorkersFigures> {
  const cwd = tempDir('enqueue-workers-');
  const catalog = writeCatalog(cwd, rows, 'catalog.csv', (i) => (invalidRow(i) ? csvRow(i).replace(`https://images.example.com/${i}/a.jpg`, 'not-a-url') : csvRow(i)));
  const expected = new Set<string>();
  for (let i = 0; i < rows; i++) if (!invalidRow(i)) expected.add(`EBAY_US/${skuOf(i)}`);
  const data = join(cwd, 'sandbox-data.ndjson');
  const sandbox = await startSandboxProcess(['--latency', '2-8', '--capacity', '16', '--data', data]);
  const workers: StreamWorker[] = [];
  try {
    await createTopic(mock.bootstrap, topic);
    const group = `${topic}-workers`;
    const start = (extra: string[] = []): StreamWorker => {
      const worker = startWorker(mock.bootstrap, topic, group, sandbox.url, cwd, extra);
      workers.push(worker);
      return worker;
    };
    // No listing defaults: an enqueued message carries every value it is sent with.
    const victim = killAt === undefined ? undefined : start(['--commit-interval', '4000']);
    const others = victim === undefined ? [start()] : [start(), start()];
    const shared = (): boolean => workers.every((worker) => (assignedTo(worker)?.length ?? 0) > 0) && workers.flatMap((worker) => assignedTo(worker) ?? []).sort().join() === '0,1,2,3';
    await until(`the ${workers.length} workers to share the 4 partitions`, shared, 60_000);

    const enqueueStarted = Date.now();
    const enqueue = await runCli(['enqueue', catalog, `kafka://${mock.bootstrap}/${topic}`, '--report', 'enqueued.csv', '--json', '--quiet'], { cwd, timeoutMs });
    const enqueueMs = Date.now() - enqueueStarted;
    expect(enqueue.code, enqueue.stderr).toBe(1);
    const summary = JSON.parse(enqueue.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ rows, enqueued: expected.size, invalid: rows - expected.size, failed: 0, not_attempted: 0, partitions: [0, 1, 2, 3] });
    // The report: every row exactly once, in order, enqueued or invalid.
    const report = readCsvReport(join(cwd, 'enqueued.csv'));
    expect(report).toHaveLength(rows);
    report.forEach((row, i) => {
      expect(row.line).toBe(String(i + 2));
      expect(row.outcome).toBe(invalidRow(i) ? 'invalid' : 'enqueued');
    });
    expect(await endsTotal(mock, topic)).toBe(expected.size);

    if (victim !== undefined && killAt !== undefined) {
      await until(`${killAt} listings created`, async () => (await sandbox.stats()).created >= killAt, timeoutMs);
      victim.child.kill('SIGKILL');
      await victim.exited;
      // Killed mid-run: the others have work left, the victim's partitions among it.
      expect((await sandbox.stats()).created).toBeLessThan(expected.size);
    }
    await until('every listing created', async () => (await sandbox.stats()).created >= expected.size, timeoutMs);
    const publishMs = Date.now() - enqueueStarted - enqueueMs;
    await waitForCommitted(mock.bootstrap, group, topic, expected.size, () => others.map((worker) => worker.stderr().slice(-1500)).join('\n---\n'), 30_000);
    await stopAll(others);
    expect(others.reduce((sum, worker) => sum + workerSummary(worker).dead_lettered, 0)).toBe(0);

    // The sandbox's records: one creation per listing, each under a key of its content, none of an invalid row.
    const creations = readFileSync(data, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { key?: string; marketplace: string; sku: string });
    const seen = new Map<string, number>();
    for (const creation of creations) seen.set(`${creation.marketplace}/${creation.sku}`, (seen.get(`${creation.marketplace}/${creation.sku}`) ?? 0) + 1);
    expect([...seen.values()].filter((n) => n !== 1)).toEqual([]);
    expect(seen.size).toBe(expected.size);
    for (const listing of expected) expect(seen.has(listing), listing).toBe(true);
    for (const creation of creations) expect(creation.key).toMatch(/^lst-[0-9a-f]{40}$/);
    const afterFirst = await sandbox.stats();
    expect(afterFirst).toMatchObject({ created: expected.size, duplicates: 0 });

    // Enqueued again, published again by a worker of the group: every listing answered from its key, none created.
    const again = await runCli(['enqueue', catalog, `kafka://${mock.bootstrap}/${topic}`, '--quiet'], { cwd, timeoutMs });
    expect(again.code, again.stderr).toBe(1);
    const replayer = start();
    await waitForCommitted(mock.bootstrap, group, topic, 2 * expected.size, () => replayer.stderr().slice(-1500), timeoutMs);
    await stopAll([replayer]);
    const afterSecond = await sandbox.stats();
    expect(afterSecond).toMatchObject({ created: expected.size, duplicates: 0 });
    expect(afterSecond.replayed - afterFirst.replayed).toBe(expected.size);
    return { listings: expected.size, invalid: rows - expected.size, enqueueMs, publishMs, replayed: afterFirst.replayed };
  } finally {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await sandbox.stop();
  }
}
