import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EngineObserver, ListingSender } from '../publish/engine-types.js';
import type { DeadLetterSink } from '../stream/dead-letter.js';
import type { KafkaLog } from '../stream/kafka-client.js';
import type { MessageMapping } from '../stream/message-draft.js';
import { streamListings, type StreamRun } from '../stream/stream-listings.js';
import type { StreamEnd, StreamListingsOptions, StreamOutcome, StreamStats } from '../stream/stream-types.js';
import { libraryName } from '../errors.js';
import { nextStep, type NextStep } from './next-step.js';
import type { RunOutputSpec, RunTargetSpec, RunWatcher, SendingPolicy } from './spec.js';
import { NO_ROWS, verdictOf, type RunEnding, type RunVerdict } from './verdict.js';

/** What a running stream tells whoever watches it; none may throw, none feeds back into the run. */
export interface StreamWatcher extends Pick<RunWatcher, 'onEvent' | 'stop' | 'abandon'> {
  /** The settings were checked and the stream is about to join its group: `run.stats()` may be read from now on. */
  onStart?: (run: StreamRun) => void | Promise<void>;
  /** Each message's outcome, as it is settled (dead-lettered or not). */
  onOutcome?: (result: StreamOutcome) => void;
  /** The Kafka client's own warnings and the stream's notices (assignments, commit failures). */
  onLog?: KafkaLog;
}

/** A stream: the shared target and sending parts, and what only a stream has. */
export interface StreamSpec {
  /** `kafka://HOST:PORT[,HOST:PORT...]/TOPIC`. */
  source: string;
  /** The consumer group: processes with the same group share the topic's partitions. */
  group: string;
  /** Renames, list separator and preset, as for a JSON catalog. */
  mapping?: MessageMapping;
  /** A stream always sends: its sender is required. */
  target: RunTargetSpec & { sender: ListingSender };
  /** How requests leave; a stream has no error limit (a failed message goes to the dead letter). */
  sending?: Omit<SendingPolicy, 'maxErrors'>;
  /** Where failed and invalid messages go: an NDJSON file, `kafka://.../TOPIC`, or a sink of your own. */
  deadLetter?: string | DeadLetterSink;
  /** The consumer's settings: where a new group starts, commits, buffering, the session, the drain, TLS and SASL. */
  kafka?: Pick<StreamListingsOptions, 'fromBeginning' | 'commitIntervalMs' | 'maxBuffered' | 'sessionTimeoutMs' | 'drainTimeoutMs' | 'security' | 'clientId'>;
  /** How the next step names a setting, and the words it repeats after the source (the CLI: its flags). */
  outputs?: Pick<RunOutputSpec, 'name' | 'repeat'>;
  watcher?: StreamWatcher;
}

/** The summary of a stream, as `--json` prints it and the log's `summary` event holds it. */
export interface StreamSummary {
  received: number;
  published: number;
  dead_lettered: number;
  /** Messages whose offsets were not committed: the next reader of their partition reads them again. */
  left_uncommitted: number;
  commits: number;
  requests: number;
  throttled: number;
  overloaded: number;
  timeouts: number;
  peak_concurrency: number;
  latency_ms: { p50: number | undefined; p95: number | undefined; p99: number | undefined };
  partitions: { partition: number; committed: number | null; lag: number | null }[];
  duration_ms: number;
  end: 'stopped' | 'abandoned' | 'running' | 'systemic' | 'source';
  verdict: { exit_code: number; why: string };
}

/** What a stream came to once it ended. */
export interface StreamResult {
  stats: StreamStats;
  end: StreamEnd;
  summary: StreamSummary;
  verdict: RunVerdict;
  /** The command that continues the work, when it did not end well (src/run/next-step.ts). */
  nextStep: NextStep | null;
}

/** A file name part from a topic or group name (both may hold characters a file system dislikes). */
function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
}

/** Where `listings stream` puts the failed and invalid messages of a topic and group when told nowhere: an NDJSON file under `.listings/`. */
export function defaultDeadLetter(topic: string, group: string): string {
  return join('.listings', `dead-letter-${fileSafe(topic)}-${fileSafe(group)}.ndjson`);
}

/** Several engine observers as one (a log's and the metrics' histogram, say): either, both or none. */
export function observersOf(...list: Array<EngineObserver | undefined>): { onEvent?: EngineObserver } {
  const given = list.filter((observer): observer is EngineObserver => observer !== undefined);
  if (given.length === 0) return {};
  const [only] = given;
  return { onEvent: given.length === 1 && only !== undefined ? only : (event) => given.forEach((observer) => observer(event)) };
}

const round = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : Math.round(ms));

/** How a stream ended, for its verdict: a stop when asked is its clean end; Kafka failing for good is its source's. */
function streamEnding(end: StreamEnd): RunEnding {
  if (end.kind === 'systemic') return { kind: 'service', reason: end.reason };
  if (end.kind === 'source') return { kind: 'source', reason: end.error instanceof Error ? end.error.message : String(end.error) };
  if (end.kind === 'stopped' && end.abandoned) return { kind: 'interrupted', abandoned: true };
  return { kind: 'complete' };
}

function summaryOf(stats: StreamStats, end: StreamEnd, durationMs: number, verdict: RunVerdict): StreamSummary {
  return {
    received: stats.received,
    published: stats.published,
    dead_lettered: stats.deadLettered,
    left_uncommitted: stats.notDurable + stats.buffered,
    commits: stats.commits,
    requests: stats.engine.requests,
    throttled: stats.engine.throttled,
    overloaded: stats.engine.overloaded,
    timeouts: stats.engine.timeouts,
    peak_concurrency: stats.engine.peakInFlight,
    latency_ms: { p50: round(stats.latency.p50), p95: round(stats.latency.p95), p99: round(stats.latency.p99) },
    partitions: stats.partitions.map((partition) => ({ partition: partition.partition, committed: partition.committed ?? null, lag: partition.lag ?? null })),
    duration_ms: Math.round(durationMs),
    end: end.kind === 'stopped' ? (end.abandoned ? 'abandoned' : 'stopped') : end.kind,
    verdict: { exit_code: verdict.exitCode, why: verdict.why },
  };
}

/**
 * Runs a stream as `listings stream` does, until `watcher.stop`, the service's end or Kafka's: the fan-out checked
 * before joining the group and the settings judged by the first messages (as a publish run's by its first rows), the
 * messages published on the engine, and the verdict of the run (`stream` kind) with its summary. Errors that stop it
 * before it runs (a configuration that cannot work, settings no message gives) are thrown.
 *
 * ```ts
 * const stop = new AbortController();
 * const result = await runStreamSpec({ source: 'kafka://localhost:9092/products', group: 'listings', target: { defaults, sender: client }, watcher: { stop: stop.signal } });
 * process.exitCode = result.verdict.exitCode;
 * ```
 */
export async function runStreamSpec(spec: StreamSpec): Promise<StreamResult> {
  const startedAt = performance.now();
  const { target, watcher = {} } = spec;
  const run = streamListings({
    source: spec.source,
    group: spec.group,
    sender: target.sender,
    defaults: target.defaults,
    ...(spec.outputs?.name === undefined ? {} : { name: spec.outputs.name }),
    ...(spec.mapping === undefined ? {} : { mapping: spec.mapping }),
    ...(spec.deadLetter === undefined ? {} : { deadLetter: spec.deadLetter }),
    ...spec.kafka,
    ...spec.sending,
    ...(watcher.stop === undefined ? {} : { stop: watcher.stop }),
    ...(watcher.abandon === undefined ? {} : { abandon: watcher.abandon }),
    ...(watcher.onEvent === undefined ? {} : { onEvent: watcher.onEvent }),
    ...(watcher.onLog === undefined ? {} : { onLog: watcher.onLog }),
  });
  await watcher.onStart?.(run);
  for await (const result of run) watcher.onOutcome?.(result);
  const stats = run.stats();
  const { end } = run;
  const verdict = verdictOf('stream', streamEnding(end), { ...NO_ROWS, rows: stats.received, published: stats.published, dead_lettered: stats.deadLettered });
  const stopped = end.kind === 'systemic' ? { stopped: { reason: end.reason, hint: end.hint } } : {};
  const step = nextStep({ command: 'stream', verdict, counts: NO_ROWS, sources: [spec.source], ...(spec.outputs?.repeat === undefined ? {} : { repeat: spec.outputs.repeat }), name: spec.outputs?.name ?? libraryName, ...stopped });
  return { stats, end, summary: summaryOf(stats, end, performance.now() - startedAt, verdict), verdict, nextStep: step };
}
