import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { spawnCli } from './cli.js';
import { committedOffsets, topicEnds, type KafkaMock } from './kafka-mock.js';
import { publishEnv } from './publish.js';

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

export interface StreamProcess {
  child: ChildProcess;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  stderr(): string;
  stdout(): string;
}

export function startStream(mock: KafkaMock, topic: string, group: string, url: string, cwd: string, extra: string[] = []): StreamProcess {
  const child = spawnCli(['stream', `kafka://${mock.bootstrap}/${topic}`, '--group', group, ...STREAM_DEFAULTS, '--session-timeout', '6000', '--status-interval', '1', '--json', ...extra], { cwd, env: publishEnv(url) });
  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return { child, exited: once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>, stderr: () => stderr, stdout: () => stdout };
}

export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, describeState: () => Promise<string> | string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${await describeState()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The partitions the process holds now, from its last assignment line. */
export function assigned(stream: StreamProcess): number[] | undefined {
  const lines = [...stream.stderr().matchAll(/assigned to this process: ([^\n]*)/g)];
  const last = lines.at(-1)?.[1];
  if (last === undefined) return undefined;
  return last.startsWith('none') ? [] : last.split(', ').map(Number);
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

export interface Summary {
  received: number;
  published: number;
  dead_lettered: number;
  end: string;
}

export function summaryOf(stream: StreamProcess): Summary {
  return JSON.parse(stream.stdout().trim().split('\n').at(-1) ?? '{}') as Summary;
}
