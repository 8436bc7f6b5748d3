import { afterAll, beforeAll } from 'vitest';
import { committedOffsets, startKafkaMock, topicEnds, type KafkaMock } from './kafka-mock.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { startWorker, type StreamWorker } from './stream-workers.js';

/** A stream process of the e2e tests (test/e2e/stream-*.test.ts): the built binary in a consumer group. */
export const STREAM_DEFAULTS = ['--marketplace', 'EBAY_US', '--merchant-location-key', 'wh-1', '--fulfillment-policy-id', 'F-1', '--payment-policy-id', 'P-1', '--return-policy-id', 'R-1'];

export function product(i: number, prefix: string): { key: string; value: string } {
  const sku = `${prefix}-${String(i).padStart(6, '0')}`;
  return { key: sku, value: JSON.stringify({ sku, title: `Item ${i}`, images_source: [`https://images.example.com/${i}.jpg`], overrides: { condition: 'NEW' } }) };
}

export function products(from: number, to: number, prefix: string): Array<{ key: string; value: string }> {
  const messages = [];
  for (let i = from; i < to; i++) messages.push(product(i, prefix));
  return messages;
}

/** A stream worker (./stream-workers.ts) on a topic of the mock, with the listing defaults a product message lacks. */
export function startStream(mock: KafkaMock, topic: string, group: string, url: string, cwd: string, extra: string[] = []): StreamWorker {
  // A flag is given once (twice with two values is refused): a default only where `extra` gives none.
  const defaults: string[] = [];
  for (let at = 0; at < STREAM_DEFAULTS.length; at += 2) {
    if (!extra.includes(STREAM_DEFAULTS[at]!)) defaults.push(STREAM_DEFAULTS[at]!, STREAM_DEFAULTS[at + 1]!);
  }
  return startWorker(mock.bootstrap, topic, group, url, cwd, [...defaults, ...extra]);
}

export { until } from './until.js';

/** A Kafka-protocol cluster for the tests of a describe block, and the sandboxes and stream workers they start. */
export interface StreamCluster {
  /** The 3-broker mock, started before the block's first test. */
  readonly mock: KafkaMock;
  /** A sandbox process, stopped after the block. */
  sandbox: (args?: string[]) => Promise<SandboxProcess>;
  /** A stream worker ({@link startStream}), killed after the block if it is still running. */
  stream: (topic: string, group: string, url: string, cwd: string, extra?: string[]) => StreamWorker;
  /** A worker started otherwise, killed after the block if it is still running. */
  adopt: (worker: StreamWorker) => void;
}

/** Call inside a describe block: registers the hooks that start the cluster before its tests and stop it all after. */
export function useStreamCluster(): StreamCluster {
  let started: KafkaMock | undefined;
  const running: StreamWorker[] = [];
  const sandboxes: SandboxProcess[] = [];
  beforeAll(async () => {
    started = await startKafkaMock(3);
  });
  afterAll(async () => {
    for (const worker of running) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await Promise.all(sandboxes.map((sandbox) => sandbox.stop()));
    await started?.stop();
  });
  const cluster: StreamCluster = {
    get mock(): KafkaMock {
      if (started === undefined) throw new Error('the Kafka mock starts in beforeAll: use it inside a test');
      return started;
    },
    sandbox: async (args: string[] = []): Promise<SandboxProcess> => {
      const sandbox = await startSandboxProcess(args);
      sandboxes.push(sandbox);
      return sandbox;
    },
    stream: (topic: string, group: string, url: string, cwd: string, extra: string[] = []): StreamWorker => {
      const worker = startStream(cluster.mock, topic, group, url, cwd, extra);
      running.push(worker);
      return worker;
    },
    adopt: (worker: StreamWorker): void => {
      running.push(worker);
    },
  };
  return cluster;
}

export async function committedTotal(mock: KafkaMock, group: string, topic: string): Promise<number> {
  let total = 0;
  for (const offset of (await committedOffsets(mock.bootstrap, group, topic)).values()) total += Math.max(0, offset);
  return total;
}

export async function endsTotal(mock: KafkaMock, topic: string): Promise<number> {
  let total = 0;
  for (const end of (await topicEnds(mock.bootstrap, topic)).values()) total += end;
  return total;
}
