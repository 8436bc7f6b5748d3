import { existsSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasKcat, NO_KCAT, produce } from '../helpers/kafka-mock.js';
import { STREAM_DEFAULTS, committedTotal, products, until, useStreamCluster } from '../helpers/stream-process.js';
import { workerSummary } from '../helpers/stream-workers.js';
import { tempDir } from '../helpers/tmp.js';
import { spawnCli } from '../helpers/cli.js';
import { publishEnv } from '../helpers/publish.js';

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

interface Letter {
  key?: string;
  offset: number;
  reason: string;
}

describe.skipIf(!kcat)('listings stream: Kafka consumer groups against a Kafka-protocol cluster (kcat mock) and the sandbox', () => {
  const cluster = useStreamCluster();
  const { sandbox, stream } = cluster;

  it('invalid messages (bad JSON, no SKU, key and sku differ) go to the dead letter with the reason; the stream goes on', async () => {
    const cwd = tempDir('stream-dlq-');
    const service = await sandbox();
    const topic = 'with-bad';
    const dlq = join(cwd, 'dead.ndjson');
    const messages = [
      ...products(0, 50, 'D'),
      { key: 'D-BAD-JSON', value: '{"sku": "D-BAD-JSON", "title": ' },
      { key: '', value: JSON.stringify({ title: 'no sku at all' }) },
      { key: 'D-KEY', value: JSON.stringify({ sku: 'D-OTHER', title: 'key and sku differ' }) },
      { key: 'D-ESC', value: JSON.stringify({ sku: 'D-ESC', images_source: ['not a url \u001b[2J'] }) },
      ...products(50, 100, 'D'),
    ];
    await produce(cluster.mock.bootstrap, topic, messages);
    const run = stream(topic, 'dlq', service.url, cwd, ['--dead-letter', dlq]);
    await until('100 listings', async () => (await service.stats()).created >= 100, 40_000, () => run.stderr());
    await until('offsets committed to the end', async () => (await committedTotal(cluster.mock, 'dlq', topic)) === messages.length, 20_000);
    run.child.kill('SIGTERM');
    const [code] = await run.exited;
    expect(code, run.stderr()).toBe(0);
    const letters = readFileSync(dlq, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Letter);
    expect(letters).toHaveLength(4);
    const byKey = new Map(letters.map((letter) => [letter.key, letter]));
    expect(byKey.get('D-BAD-JSON')).toMatchObject({ topic, outcome: 'invalid', value: '{"sku": "D-BAD-JSON", "title": ', value_encoding: 'utf8' });
    expect(byKey.get('D-BAD-JSON')?.reason).toMatch(/not JSON/);
    expect(byKey.get('')?.reason).toMatch(/sku: is required/);
    expect(byKey.get('D-KEY')?.reason).toMatch(/key "D-KEY" and the sku "D-OTHER" differ/);
    expect(byKey.get('D-ESC')?.reason).toMatch(/images_source/);
    for (const letter of letters) expect(typeof letter.offset).toBe('number');
    // Catalog text reaches the terminal escaped.
    expect(run.stderr()).not.toContain('\u001b[2J');
    expect(workerSummary(run)).toMatchObject({ received: 104, published: 100, dead_lettered: 4 });
  }, 90_000);

  it('the service answering 503 for a while: consumption pauses and resumes, no message is dead-lettered for it', async () => {
    const cwd = tempDir('stream-outage-');
    const service = await sandbox(['--latency', '1-3']);
    const topic = 'outage';
    const dlq = join(cwd, 'dead.ndjson');
    await produce(cluster.mock.bootstrap, topic, products(0, 300, 'O'));
    const run = stream(topic, 'outage', service.url, cwd, ['--dead-letter', dlq, '--max-buffered', '200']);
    await until('300 listings', async () => (await service.stats()).created >= 300, 40_000, () => run.stderr());
    const outage = await fetch(`${service.url}/_sandbox/outage`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 5000, status: 503 }) });
    expect(outage.status).toBe(200);
    await produce(cluster.mock.bootstrap, topic, products(300, 1000, 'O'));
    // During the outage nothing is created, and the stream holds at most --max-buffered messages it has not finished.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await service.stats()).created).toBe(300);
    await until('1,000 listings', async () => (await service.stats()).created >= 1000, 60_000, async () => `${JSON.stringify(await service.stats())}\n${run.stderr().slice(-1500)}`);
    await until('offsets committed to the end', async () => (await committedTotal(cluster.mock, 'outage', topic)) === 1000, 20_000);
    run.child.kill('SIGTERM');
    const [code] = await run.exited;
    expect(code, run.stderr()).toBe(0);
    const stats = await service.stats();
    expect(stats.by_status['503'] ?? 0).toBeGreaterThan(0);
    expect(stats.created).toBe(1000);
    expect(stats.duplicates).toBe(0);
    expect(existsSync(dlq) ? readFileSync(dlq, 'utf8') : '').toBe('');
    expect(run.stderr()).toMatch(/status: .*pushback/);
    expect(workerSummary(run)).toMatchObject({ received: 1000, published: 1000, dead_lettered: 0 });
  }, 120_000);

  it('--marketplace A,B fans each message out: one listing per marketplace, the offset committed once both are durable', async () => {
    const cwd = tempDir('stream-fanout-');
    const service = await sandbox();
    const topic = 'fan-out';
    await produce(cluster.mock.bootstrap, topic, products(0, 100, 'F'));
    // In place of the --marketplace of STREAM_DEFAULTS.
    const run = stream(topic, 'fan', service.url, cwd, ['--marketplace', 'EBAY_US,EBAY_GB']);
    await until('200 listings', async () => (await service.stats()).created >= 200, 40_000);
    await until('offsets committed to the end', async () => (await committedTotal(cluster.mock, 'fan', topic)) === 100, 20_000);
    run.child.kill('SIGTERM');
    const [code] = await run.exited;
    expect(code, run.stderr()).toBe(0);
    expect(await service.stats()).toMatchObject({ created: 200, duplicates: 0 });
    expect(workerSummary(run)).toMatchObject({ received: 100, published: 200, dead_lettered: 0 });
  }, 60_000);

  it('a service that goes away ends the stream with exit 3 after committing what was done', async () => {
    const cwd = tempDir('stream-down-');
    const service = await sandbox();
    const topic = 'service-down';
    await produce(cluster.mock.bootstrap, topic, products(0, 200, 'S'));
    const run = stream(topic, 'down', service.url, cwd, ['--give-up-after', '3']);
    await until('200 listings', async () => (await service.stats()).created >= 200, 40_000, () => run.stderr());
    await until('offsets committed', async () => (await committedTotal(cluster.mock, 'down', topic)) === 200, 20_000);
    await service.stop();
    await produce(cluster.mock.bootstrap, topic, products(200, 300, 'S'));
    const [code] = await run.exited;
    expect(code, run.stderr()).toBe(3);
    expect(run.stderr()).toMatch(/service is unusable/);
    // Nothing of the last 100 was done, so nothing of it is committed: the next process sends it.
    expect(await committedTotal(cluster.mock, 'down', topic)).toBe(200);
    expect(workerSummary(run)).toMatchObject({ published: 200, dead_lettered: 0 });
  }, 90_000);

  it('TLS and SASL settings that the brokers do not speak end with exit 4 and a hint; the SASL password is never printed', async () => {
    const cwd = tempDir('stream-tls-');
    const child = spawnCli(['stream', `kafka://${cluster.mock.bootstrap}/tls`, '--group', 'tls', ...STREAM_DEFAULTS, '--sandbox', '--kafka-tls'], {
      cwd,
      env: { LISTINGS_KAFKA_SASL_MECHANISM: 'scram-sha-256', LISTINGS_KAFKA_USERNAME: 'svc', LISTINGS_KAFKA_PASSWORD: 'canary-kafka-password-9731' },
    });
    let output = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code, output).toBe(4);
    expect(output).toMatch(/cannot join consumer group "tls"/);
    expect(output).toMatch(/hint/);
    expect(output).not.toContain('canary-kafka-password-9731');
    const half = spawnCli(['stream', `kafka://${cluster.mock.bootstrap}/tls`, '--group', 'tls', ...STREAM_DEFAULTS, '--sandbox'], { cwd, env: { LISTINGS_KAFKA_PASSWORD: 'canary-kafka-password-9731' } });
    let stderr = '';
    half.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [halfCode] = (await once(half, 'exit')) as [number | null];
    expect(halfCode).toBe(2);
    expect(stderr).toMatch(/LISTINGS_KAFKA_SASL_MECHANISM is not/);
    expect(stderr).not.toContain('canary-kafka-password-9731');
  }, 60_000);

  it('settings that no flag, variable, profile or first message gives: one error naming them (exit 2), as publish; nothing sent, dead-lettered or committed', async () => {
    const cwd = tempDir('stream-unset-');
    const service = await sandbox();
    const topic = 'unset-settings';
    await produce(cluster.mock.bootstrap, topic, products(0, 150, 'U'));
    const child = spawnCli(['stream', `kafka://${cluster.mock.bootstrap}/${topic}`, '--group', 'unset', '--marketplace', 'EBAY_US', '--session-timeout', '6000'], { cwd, env: publishEnv(service.url) });
    cluster.adopt({ child, exited: once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>, stderr: () => '', stdout: () => '' });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const deadline = setTimeout(() => child.kill('SIGTERM'), 40_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(deadline);
    expect(code, stderr).toBe(2);
    // Worded for messages, as a person finds them in Kafka: the topic, the partition and the offsets read.
    expect(stderr).toMatch(/merchant_location_key, fulfillment_policy_id, payment_policy_id, return_policy_id are not set, and none of the first \d+ messages read \(topic unset-settings, partition \d, offsets \d+ to \d+\) has a value for them/);
    expect(stderr).toContain('--fulfillment-policy-id');
    expect(stderr).toContain('or a return_policy_id field in the messages');
    expect(stderr).not.toMatch(/rows|catalog|column/);
    expect((await service.stats()).created).toBe(0);
    expect(await committedTotal(cluster.mock, 'unset', topic)).toBe(0);
    expect(existsSync(join(cwd, '.listings', `dead-letter-${topic}-unset.ndjson`)) ? readFileSync(join(cwd, '.listings', `dead-letter-${topic}-unset.ndjson`), 'utf8') : '').toBe('');
  }, 60_000);

  it('refuses what is not a Kafka topic, and says so (exit 2)', async () => {
    const cwd = tempDir('stream-usage-');
    const bad = spawnCli(['stream', 'catalog.csv', '--group', 'g', ...STREAM_DEFAULTS], { cwd, env: publishEnv('http://127.0.0.1:9') });
    let stderr = '';
    bad.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(bad, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/not a Kafka topic/);
  }, 30_000);
});
