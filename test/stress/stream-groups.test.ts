import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedOffsets, hasKcat, NO_KCAT, produce } from '../helpers/kafka-mock.js';
import { committedTotal, endsTotal, products, until, useStreamCluster } from '../helpers/stream-process.js';
import { assignedTo, workerSummary } from '../helpers/stream-workers.js';
import { tempDir } from '../helpers/tmp.js';

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

/**
 * Consumer groups at volume, and a member killed with SIGKILL (test/e2e/stream-kafka.test.ts holds the rest of
 * `listings stream`): 10,000 messages each, 10-25 s a test on a 2-core machine.
 */
describe.skipIf(!kcat)('listings stream: two processes of one consumer group (kcat mock) and the sandbox, 10,000 messages', () => {
  const cluster = useStreamCluster();
  const { sandbox, stream } = cluster;

  it('10,000 messages over 4 partitions, 2 processes in one group: 10,000 created, each exits 0 on SIGTERM, offsets committed to the end', async () => {
    const cwd = tempDir('stream-group-');
    const service = await sandbox(['--latency', '1-4']);
    const topic = 'group-two';
    await produce(cluster.mock.bootstrap, topic, products(0, 2000, 'G'));
    const a = stream(topic, 'two', service.url, cwd);
    const b = stream(topic, 'two', service.url, cwd);
    // Both members hold partitions before the rest is produced, so both publish.
    // Each says what it holds after every rebalance: wait until the two hold the four partitions between them.
    const shared = (): boolean => (assignedTo(a)?.length ?? 0) > 0 && (assignedTo(b)?.length ?? 0) > 0 && [...(assignedTo(a) ?? []), ...(assignedTo(b) ?? [])].sort().join() === '0,1,2,3';
    await until('the two processes to share the 4 partitions', shared, 40_000, () => `${a.stderr()}\n---\n${b.stderr()}`);
    await produce(cluster.mock.bootstrap, topic, products(2000, 10_000, 'G'));
    await until('10,000 listings', async () => (await service.stats()).created >= 10_000, 60_000, async () => JSON.stringify(await service.stats()));
    expect(await endsTotal(cluster.mock, topic)).toBe(10_000);
    await until('offsets committed to the end', async () => (await committedTotal(cluster.mock, 'two', topic)) === 10_000, 20_000, async () => JSON.stringify([...(await committedOffsets(cluster.mock.bootstrap, 'two', topic))]));
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    const [[codeA], [codeB]] = await Promise.all([a.exited, b.exited]);
    expect(codeA, a.stderr()).toBe(0);
    expect(codeB, b.stderr()).toBe(0);
    const stats = await service.stats();
    expect(stats.created).toBe(10_000);
    expect(stats.duplicates).toBe(0);
    const [sa, sb] = [workerSummary(a), workerSummary(b)];
    expect(sa.published).toBeGreaterThan(0);
    expect(sb.published).toBeGreaterThan(0);
    // Every publication beyond the 10,000 was a replay of a message under its own key, answered without creating.
    expect(sa.published + sb.published).toBe(10_000 + stats.replayed);
    expect(sa.end).toBe('stopped');
    expect(existsSync(join(cwd, '.listings', `dead-letter-${topic}-two.ndjson`)) ? readFileSync(join(cwd, '.listings', `dead-letter-${topic}-two.ndjson`), 'utf8') : '').toBe('');
  }, 150_000);

  it('kill -9 of one of two processes mid-stream: the other takes over its partitions, all 10,000 created, replays under the same Idempotency-Key', async () => {
    const cwd = tempDir('stream-kill-');
    const service = await sandbox(['--latency', '5-15', '--capacity', '40']);
    const topic = 'group-kill';
    await produce(cluster.mock.bootstrap, topic, products(0, 400, 'K'));
    // The victim commits rarely, so some of what it published is not committed when it dies: the survivor sends it again.
    const victim = stream(topic, 'kill', service.url, cwd, ['--commit-interval', '4000']);
    const survivor = stream(topic, 'kill', service.url, cwd);
    await until('both processes to hold partitions', () => (assignedTo(victim)?.length ?? 0) > 0 && (assignedTo(survivor)?.length ?? 0) > 0, 40_000, () => `${victim.stderr()}\n---\n${survivor.stderr()}`);
    await produce(cluster.mock.bootstrap, topic, products(400, 10_000, 'K'));
    await until('3,000 listings', async () => (await service.stats()).created >= 3000, 60_000);
    victim.child.kill('SIGKILL');
    await victim.exited;
    await until('10,000 listings', async () => (await service.stats()).created >= 10_000, 90_000, async () => `${JSON.stringify(await service.stats())}\n${survivor.stderr().slice(-2000)}`);
    expect(assignedTo(survivor)).toEqual([0, 1, 2, 3]);
    await until('offsets committed to the end', async () => (await committedTotal(cluster.mock, 'kill', topic)) === 10_000, 20_000);
    survivor.child.kill('SIGTERM');
    const [code] = await survivor.exited;
    expect(code, survivor.stderr()).toBe(0);
    const stats = await service.stats();
    expect(stats.created).toBe(10_000);
    // A replay with another key would have been a second creation: none was.
    expect(stats.duplicates).toBe(0);
    expect(stats.replayed).toBeGreaterThan(0);
  }, 200_000);
});
