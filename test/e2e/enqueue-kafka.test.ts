import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { enqueueToWorkers } from '../helpers/enqueue-workers.js';
import { hasKcat, NO_KCAT, startKafkaMock, type KafkaMock } from '../helpers/kafka-mock.js';
import { writeCatalog } from '../helpers/publish.js';
import { tempDir } from '../helpers/tmp.js';

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

describe('listings enqueue: usage and settings, before Kafka is reached', () => {
  it('is listed by listings --help', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toMatch(/^\s+enqueue \[options\] <source> <topic>/m);
  });

  it('refuses a topic that is not kafka://, and missing settings, with exit 2 (nothing is sent)', async () => {
    const cwd = tempDir('enqueue-usage-');
    const catalog = writeCatalog(cwd, 3);
    const bad = await runCli(['enqueue', catalog, 'topic'], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a Kafka topic/);
    // The rows name no policies and nothing else gives them: one settings error, before any broker is asked.
    const bare = `${cwd}/bare.csv`;
    writeCatalog(cwd, 3, 'bare.csv', (i) => `SKU-${i},Item ${i},EBAY_US,https://images.example.com/${i}.jpg,,,,,NEW`);
    const missing = await runCli(['enqueue', bare, 'kafka://127.0.0.1:9/products'], { cwd });
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toMatch(/--fulfillment-policy-id/);
    expect(missing.stderr).not.toMatch(/connect/);
  });
});

describe.skipIf(!kcat)('listings enqueue to a Kafka-protocol cluster (kcat mock), published by listings stream workers', () => {
  let mock: KafkaMock;

  beforeAll(async () => {
    mock = await startKafkaMock(3);
  });

  afterAll(async () => {
    await mock?.stop();
  });

  // Three workers with one killed mid-run: test/stress/enqueue-workers.test.ts (a chaos run of ~40 s).
  it('1,000 rows enqueued, published by a stream worker: every listing created exactly once; enqueued again, none created again', async () => {
    const figures = await enqueueToWorkers(mock, 'enqueue-1k', 1000, undefined, 60_000);
    expect(figures.listings).toBe(998);
    expect(figures.replayed).toBe(0);
  }, 150_000);

  it('brokers that cannot be reached: exit 3 with a hint, after the catalog was checked', async () => {
    const cwd = tempDir('enqueue-down-');
    const catalog = writeCatalog(cwd, 3);
    const down = await runCli(['enqueue', catalog, 'kafka://127.0.0.1:9/products'], { cwd, timeoutMs: 60_000 });
    expect(down.code, down.stderr).toBe(3);
    expect(down.stderr).toMatch(/cannot connect to the brokers/);
    expect(down.stderr).toMatch(/hint/);
  }, 70_000);
});
