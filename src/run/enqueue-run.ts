import { performance } from 'node:perf_hooks';
import { libraryName, UsageError } from '../errors.js';
import { checkOutputs } from '../fs/check-outputs.js';
import { checkFanOut } from '../prepare/fan-out.js';
import type { RowOutcome } from '../publish/outcome.js';
import { reportFormatOf, reportRules, SummaryCounter, type RunSummary } from '../report/index.js';
import { redactSourceName } from '../secret-url.js';
import { enqueueListings, type EnqueueEnd } from '../stream/enqueue.js';
import { isKafkaAddress, parseKafkaAddress, type KafkaAddress } from '../stream/kafka-address.js';
import type { Compression, KafkaLog, TopicProducer } from '../stream/kafka-client.js';
import type { KafkaSecurity } from '../stream/kafka-security.js';
import { VERSION } from '../version.js';
import { openPipeline } from './pipeline.js';
import { RunOutputs, type OutputFailure } from './run-outputs.js';
import { takeOutcomes } from './take-outcomes.js';
import { nextStep, type NextStep } from './next-step.js';
import type { RunOutputSpec, RunSourceSpec, RunTargetSpec, RunWatcher } from './spec.js';
import { enqueueVerdict, type RunVerdict } from './verdict.js';

/** What a running enqueue tells whoever watches it; none may throw, none feeds back into the run. */
export interface EnqueueWatcher extends Pick<RunWatcher, 'onNotice' | 'onOutcome' | 'stop'> {
  /** The outputs are checked and the run is about to open the catalog (the log's `run_start`). */
  onStart?: () => void;
  /** The catalog, the producer and the outputs are open: rows are about to be read and produced. */
  onSending?: () => void;
  /** The Kafka client's own messages. */
  onLog?: KafkaLog;
}

/** A catalog produced to a topic: the shared source, defaults and outputs, and what only an enqueue has. */
export interface EnqueueSpec {
  source: RunSourceSpec;
  /** `kafka://HOST:PORT[,HOST:PORT...]/TOPIC`. */
  topic: string;
  /** Only the defaults: Kafka takes the service's place. */
  target: Pick<RunTargetSpec, 'defaults'>;
  /** Messages per produce request, at most (default 1,000), their compression (default none), TLS and SASL. */
  kafka?: { batchSize?: number; compression?: Compression; security?: KafkaSecurity; clientId?: string };
  /** Reports only: an enqueue keeps no journal and no state. */
  outputs?: Pick<RunOutputSpec, 'reports' | 'profile' | 'name' | 'repeat'>;
}

/** What `--json` prints and the log's `summary` holds: the run's counts, and where the listings went. */
export type EnqueueSummary = RunSummary & { topic: string; partitions: number[]; batches: number; bytes: number; compression: string; verdict: { exit_code: number; why: string } };

/** What an enqueue came to. */
export interface EnqueueResult {
  summary: EnqueueSummary;
  verdict: RunVerdict;
  end: EnqueueEnd;
  /** The first failed and invalid rows, to show. */
  rowErrors: RowOutcome[];
  outputFailure?: OutputFailure;
  /** The catalog stopped part-way: its error (the verdict is the source's). */
  sourceError?: unknown;
  /** The command that continues the work, when it did not end well (src/run/next-step.ts). */
  nextStep: NextStep | null;
}

/** The topic of an enqueue, checked; `where` names it without the key. */
export function enqueueTopic(topic: string): { address: KafkaAddress; where: string } {
  if (!isKafkaAddress(topic)) throw new UsageError(`${JSON.stringify(redactSourceName(topic))} is not a Kafka topic: listings enqueue sends to kafka://HOST:PORT[,HOST:PORT...]/TOPIC`);
  const address = parseKafkaAddress(topic, 'topic');
  return { address, where: `kafka://${address.brokers.join(',')}/${address.topic}` };
}

/** The reports an enqueue can write: every format but HTML, which is of publish runs. */
export function checkEnqueueReports(reports: readonly string[]): void {
  for (const path of reports) {
    if (reportFormatOf(path) === 'html') throw new UsageError((name) => `${name('report')} ${path}: the HTML report is of publish runs; enqueue writes .csv, .json, .ndjson or .xml`, { setting: { key: 'report', value: path } });
  }
}

/**
 * One enqueue, as `listings enqueue` runs it: the catalog read, mapped and checked as a publish checks it (steps 4-8
 * of docs/ARCHITECTURE.md), each listing ready to send produced to the topic as one message
 * (src/stream/listing-message.ts), in batches acknowledged by every in-sync replica, each row's outcome handed to the
 * summary and the reports. Nothing is printed; the result carries the verdict (Kafka unusable: exit 3).
 */
export async function runEnqueueSpec(spec: EnqueueSpec, watcher: EnqueueWatcher = {}): Promise<EnqueueResult> {
  const startedAt = performance.now();
  const started = new Date();
  const { address, where } = enqueueTopic(spec.topic);
  const reports = spec.outputs?.reports ?? [];
  const name = spec.outputs?.name ?? libraryName;
  const batchSize = spec.kafka?.batchSize ?? 1000;
  const compression = spec.kafka?.compression ?? 'none';
  checkEnqueueReports(reports);
  checkFanOut(spec.target.defaults);
  await checkOutputs(reports.map((path) => ({ path, role: 'report', rules: reportRules(path) })), process.cwd());
  watcher.onStart?.();
  const outputStop = new AbortController();
  let outputs: RunOutputs | undefined;
  let producer: TopicProducer | undefined;
  try {
    // Settings that no default or first row gives: one error here, before Kafka is reached.
    const catalog = { ...spec.source.catalog, ...(watcher.stop === undefined ? {} : { signal: watcher.stop }), ...(watcher.onNotice === undefined ? {} : { onNotice: watcher.onNotice }) };
    const pipeline = await openPipeline(spec.source.sources, { defaults: spec.target.defaults, catalog, ...(spec.outputs?.name === undefined ? {} : { name: spec.outputs.name }) });
    const { openListingProducer } = await import('../stream/kafka-client.js');
    producer = await openListingProducer({ address, clientId: spec.kafka?.clientId ?? 'listings-enqueue', security: spec.kafka?.security ?? {}, compression, log: watcher.onLog ?? (() => undefined) });
    outputs = await RunOutputs.open({ reports, onFailure: () => outputStop.abort() });
    watcher.onSending?.();
    const stop = watcher.stop === undefined ? outputStop.signal : AbortSignal.any([watcher.stop, outputStop.signal]);
    const run = enqueueListings(pipeline.drafts, { defaults: spec.target.defaults, producer, batchSize, stop, ...(spec.outputs?.name === undefined ? {} : { name: spec.outputs.name }) });
    const counter = new SummaryCounter();
    const rowErrors: RowOutcome[] = [];
    const sourceError = await takeOutcomes(run, { counter, onOutcome: watcher.onOutcome, outputs, rowErrors });
    const stats = run.stats();
    const ended = run.end.kind;
    const reading = { complete: ended === 'completed' || ended === 'kafka', interrupted: watcher.stop?.aborted === true };
    const counts = counter.summary(Math.round(performance.now() - startedAt), [...reports], undefined, reading);
    const opened = outputs;
    const verdictOf = (): RunVerdict => enqueueVerdict(run.end, counts, opened.failure);
    const planned = verdictOf();
    const sources = spec.source.sources.map(redactSourceName);
    await outputs.close(counts, { sources, profile: spec.outputs?.profile, target: where, marketplace: spec.target.defaults.marketplace ?? spec.target.defaults.marketplaces?.join(','), startedAt: started, toolVersion: VERSION, exitCode: planned.exitCode, why: planned.why, name });
    const verdict = verdictOf();
    const written = outputs.reportsWritten;
    const summary: EnqueueSummary = {
      ...counts,
      report: reports.filter((path) => written.includes(path)),
      topic: where,
      partitions: stats.partitions,
      batches: stats.batches,
      bytes: stats.bytes,
      compression,
      verdict: { exit_code: verdict.exitCode, why: verdict.why },
    };
    // A catalog whose columns cannot work (no SKU column, say) read no row: the error is the whole story.
    if (sourceError instanceof UsageError && summary.rows === 0) throw sourceError;
    const failure = outputs.failure;
    const stopped = run.end.kind === 'kafka' ? { stopped: { reason: (run.end.error as Error).message ?? String(run.end.error) } } : {};
    const repeat = spec.outputs?.repeat === undefined ? {} : { repeat: spec.outputs.repeat };
    const step = nextStep({ command: 'enqueue', verdict, counts: summary, sources: [...spec.source.sources, spec.topic], ...repeat, name, ...stopped, ...(failure === undefined ? {} : { outputPath: failure.path }) });
    return { summary, verdict, end: run.end, rowErrors, ...(failure === undefined ? {} : { outputFailure: failure }), ...(sourceError === undefined ? {} : { sourceError }), nextStep: step };
  } finally {
    await outputs?.abort();
    await producer?.close().catch(() => undefined);
  }
}
