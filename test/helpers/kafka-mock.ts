import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

/** A Kafka-protocol cluster on 127.0.0.1: librdkafka's mock cluster, run by kcat (Debian's package). */
export interface KafkaMock {
  /** `HOST:PORT,...` of its brokers. */
  bootstrap: string;
  stop(): Promise<void>;
}

/** True when kcat is installed; tests that need it skip (with a message) where it is not. */
export function hasKcat(): boolean {
  return spawnSync('kcat', ['-V'], { stdio: 'ignore' }).status === 0;
}

export const NO_KCAT = 'SKIPPED: kcat is not installed (apt-get install -y kcat): the Kafka stream tests need its mock cluster';

/**
 * Starts a mock cluster of `brokers` brokers. kcat serves it while its stdin stays open, and prints the bootstrap
 * address in its debug log. Topics are created on first use with 4 partitions.
 */
export function startKafkaMock(brokers = 3): Promise<KafkaMock> {
  const child: ChildProcess = spawn('kcat', ['-P', '-b', 'dummy:9092', '-t', '_warmup', '-X', `test.mock.num.brokers=${brokers}`, '-d', 'mock'], { stdio: ['pipe', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kcat mock cluster did not start: ${log.slice(-500)}`));
    }, 10_000);
    child.on('error', reject);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (log.length < 100_000) log += chunk.toString('utf8');
      const match = /bootstrap\.servers=([0-9.:,]+)/.exec(log);
      if (match === null || timer === undefined) return;
      clearTimeout(timer);
      child.stderr?.removeAllListeners('data');
      child.stderr?.resume();
      resolve({
        bootstrap: match[1] as string,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.stdin?.end();
            setTimeout(() => child.kill('SIGKILL'), 2000).unref();
          }),
      });
    });
  });
}

/** Produces `key<TAB>value` messages with kcat (keyed, so one key always lands in one partition). */
export function produce(bootstrap: string, topic: string, messages: ReadonlyArray<{ key: string; value: string }>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', ['-P', '-b', bootstrap, '-t', topic, '-K', '\t', '-z', 'none'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kcat -P exited ${code}: ${errors.slice(-500)}`))));
    const lines = messages.map((message) => `${message.key}\t${message.value}\n`).join('');
    child.stdin.end(lines);
  });
}

/** The group's committed offsets of the topic, per partition (-1: none), read with kafkajs's admin client. */
export async function committedOffsets(bootstrap: string, group: string, topic: string): Promise<Map<number, number>> {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({ brokers: bootstrap.split(','), clientId: 'test-admin', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    return new Map((offsets?.partitions ?? []).map((partition) => [partition.partition, Number(partition.offset)]));
  } finally {
    await admin.disconnect();
  }
}

/** The end (high watermark) of each partition of the topic. */
export async function topicEnds(bootstrap: string, topic: string): Promise<Map<number, number>> {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({ brokers: bootstrap.split(','), clientId: 'test-admin', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((partition) => [partition.partition, Number(partition.high)]));
  } finally {
    await admin.disconnect();
  }
}

/** Wait until the group has committed `count` messages of the topic in all (every partition together). */
export async function waitForCommitted(bootstrap: string, group: string, topic: string, count: number, why: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const committed = async () => [...(await committedOffsets(bootstrap, group, topic)).values()].reduce((sum, offset) => sum + Math.max(0, offset), 0);
  while ((await committed()) < count) {
    if (Date.now() > deadline) throw new Error(`offsets not committed: ${why()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Creates the topic (4 partitions, the mock's default) by asking for its metadata with kcat, which lets brokers
 * create it. kafkajs's admin cannot: the mock names no controller (broker 0, which does not exist).
 */
export function createTopic(bootstrap: string, topic: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', ['-L', '-b', bootstrap, '-t', topic], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kcat -L exited ${code}: ${errors.slice(-500)}`))));
  });
}
