import { performance } from 'node:perf_hooks';
import { isKafkaAddress, parseKafkaAddress } from '../../stream/kafka-address.js';
import { kafkaSecurityFromEnv } from '../../stream/kafka-security.js';
import { enqueueListings, type EnqueueRun } from '../../stream/enqueue.js';
import { checkFanOut } from '../../prepare/fan-out.js';
import { SummaryCounter, reportFormatOf, reportRules, type RunSummary } from '../../report/index.js';
import type { RowOutcome } from '../../publish/outcome.js';
import { UsageError } from '../../errors.js';
import { checkOutputs } from '../../fs/check-outputs.js';
import { openPipeline } from '../../run/pipeline.js';
import { RunOutputs } from '../../run/run-outputs.js';
import { enqueueVerdict, type RunVerdict } from '../../run/verdict.js';
import { redactSourceName } from '../../secret-url.js';
import { VERSION } from '../../version.js';
import { nextStep } from '../../run/next-step.js';
import { printNextStep } from '../next-step.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, paint } from '../output.js';
import { count, duration } from '../progress.js';
import { trapSignals } from '../signals.js';
import { noticePrinter } from '../notices.js';
import { rowErrorLine } from '../summary.js';
import { ROW_ERRORS_KEPT } from '../../run/publish-spec.js';
import { catalogOptionsFrom } from '../catalog-options.js';
import { openRunLog, runStartOf } from '../log-events.js';
import { cliName } from '../setting-flags.js';
import type { LoadedSettings } from '../settings.js';
import type { EnqueueFlags } from './enqueue-flags.js';
import type { TopicProducer } from '../../stream/kafka-client.js';

/** What `--json` prints and the log's `summary` holds: the run's counts, and where the listings went. */
type EnqueueSummary = RunSummary & { topic: string; partitions: number[]; batches: number; bytes: number; compression: string; verdict: { exit_code: number; why: string } };

function part(value: number, label: string, colour: (text: string) => string): string {
  const text = `${count(value)} ${label}`;
  return value === 0 ? paint.dim(text) : colour(text);
}

/** The human summary on stderr: the first row errors, the counts, where they went. */
function printEnqueueSummary(summary: EnqueueSummary, rowErrors: readonly RowOutcome[]): void {
  const wrong = summary.failed + summary.invalid;
  for (const outcome of rowErrors) err(`${paint.red('error')} ${rowErrorLine(outcome, summary.by_marketplace !== undefined)}`);
  if (wrong > rowErrors.length) err(paint.dim(`... and ${count(wrong - rowErrors.length)} more ${summary.report.length > 0 ? '(see the report)' : '(write them all with --report FILE.csv)'}`));
  const ok = summary.verdict.exit_code === EXIT.ok;
  const parts = [
    part(summary.enqueued, 'enqueued', paint.green),
    part(summary.invalid, 'invalid', paint.yellow),
    part(summary.skipped, 'skipped', (text) => text),
    part(summary.failed, 'failed', paint.red),
    part(summary.not_attempted, 'not attempted', paint.yellow),
  ];
  err(`${ok ? paint.green('✔') : paint.red('✖')} ${count(summary.rows)} ${summary.rows === 1 ? 'listing' : 'listings'} in ${duration(summary.duration_ms)} (${count(Math.round(summary.rows_per_second))}/s): ${parts.join(', ')}`);
  const partitions = summary.partitions.length === 0 ? 'no partition' : `${summary.partitions.length === 1 ? 'partition' : 'partitions'} ${summary.partitions.join(', ')}`;
  err(`  to ${summary.topic}: ${partitions} · ${count(summary.batches)} ${summary.batches === 1 ? 'batch' : 'batches'} · ${count(summary.bytes)} bytes before ${summary.compression === 'none' ? 'no compression' : summary.compression}`);
  if (summary.report.length > 0) err(`  report: ${summary.report.join(', ')}`);
  if (!ok) err(`  ${summary.verdict.why}`);
}

/** The end of the run for the log's `summary` event. */
function endOf(run: EnqueueRun): { kind: string } {
  return { kind: run.end.kind };
}

/** `listings enqueue SOURCE kafka://BROKERS/TOPIC`: the catalog checked as publish checks it, each listing a message. */
export async function runEnqueue(source: string, topic: string, flags: EnqueueFlags, load: () => Promise<LoadedSettings>, repeat: readonly string[] = []): Promise<void> {
  const startedAt = performance.now();
  const started = new Date();
  if (!isKafkaAddress(topic)) throw new UsageError(`${JSON.stringify(redactSourceName(topic))} is not a Kafka topic: listings enqueue sends to kafka://HOST:PORT[,HOST:PORT...]/TOPIC`);
  const address = parseKafkaAddress(topic, 'topic');
  for (const path of flags.report) {
    if (reportFormatOf(path) === 'html') throw new UsageError(`--report ${path}: the HTML report is of publish runs; enqueue writes .csv, .json, .ndjson or .xml`);
  }
  const catalogOptions = await catalogOptionsFrom(flags);
  const security = kafkaSecurityFromEnv(process.env, flags.kafkaTls);
  const loaded = await load();
  checkFanOut(loaded.defaults);
  const cwd = process.cwd();
  await checkOutputs(flags.report.map((path) => ({ path, role: 'report', rules: reportRules(path) })), cwd);
  const where = `kafka://${address.brokers.join(',')}/${address.topic}`;
  const log = openRunLog({ format: flags.logFormat, verbose: false, debug: false, path: where });
  const quiet = flags.quiet === true || log.json;
  log.start(runStartOf('enqueue', [redactSourceName(source)], loaded, { origin: undefined, sandbox: false, dryRun: false }, { topic: where, batch_size: flags.batchSize, compression: flags.compression, report: flags.report }));
  const signals = trapSignals((n) => err(n === 1 ? 'stopping: no new rows are read; waiting for the batch in flight' : 'abandoning'));
  const outputStop = new AbortController();
  let outputs: RunOutputs | undefined;
  let producer: TopicProducer | undefined;
  try {
    // Settings that no flag, env, profile or first row gives: one error (exit 2) here, before Kafka is reached.
    const onNotice = noticePrinter(loaded.defaults, err);
    const pipeline = await openPipeline([source], { defaults: loaded.defaults, catalog: { ...catalogOptions, signal: signals.stop, onNotice } });
    const { openListingProducer } = await import('../../stream/kafka-client.js');
    producer = await openListingProducer({
      address,
      clientId: 'listings-enqueue',
      security,
      compression: flags.compression,
      log: (level, message) => {
        if (level !== 'info' && !quiet) err(`${level === 'error' ? paint.red('error') : paint.yellow('warning')} ${message}`);
      },
    });
    outputs = await RunOutputs.open({ reports: flags.report, onFailure: () => outputStop.abort() });
    if (!quiet) err(`enqueuing ${redactSourceName(source)} to ${where} (batches of up to ${count(flags.batchSize)}, ${flags.compression})`);
    const run = enqueueListings(pipeline.drafts, { defaults: loaded.defaults, producer, batchSize: flags.batchSize, stop: AbortSignal.any([signals.stop, outputStop.signal]) });
    const counter = new SummaryCounter();
    const rowErrors: RowOutcome[] = [];
    const reports = outputs;
    // Each outcome to its subscribers: the counts, the log, the reports, the first errors to show.
    const take = (outcome: RowOutcome): Promise<void> => {
      counter.add(outcome);
      log.outcome(outcome);
      if ((outcome.outcome === 'failed' || outcome.outcome === 'invalid') && rowErrors.length < ROW_ERRORS_KEPT) rowErrors.push(outcome);
      return reports.write(outcome);
    };
    let sourceError: unknown;
    try {
      for await (const outcome of run) await take(outcome);
    } catch (error) {
      if (run.end.kind !== 'source') throw error;
      sourceError = error;
    }
    const stats = run.stats();
    const interrupted = signals.received() !== undefined;
    const ended = run.end.kind;
    const reading = { complete: ended === 'completed' || ended === 'kafka', interrupted };
    const counts = counter.summary(Math.round(performance.now() - startedAt), flags.report, undefined, reading);
    const verdictOf = (): RunVerdict => enqueueVerdict(run.end, counts, outputs?.failure);
    const planned = verdictOf();
    await outputs.close(counts, { sources: [redactSourceName(source)], profile: loaded.profile, target: where, marketplace: loaded.settings.marketplace, startedAt: started, toolVersion: VERSION, exitCode: planned.exitCode, why: planned.why, name: cliName });
    const verdict = verdictOf();
    const written = outputs.reportsWritten;
    const summary: EnqueueSummary = {
      ...counts,
      report: flags.report.filter((path) => written.includes(path)),
      topic: where,
      partitions: stats.partitions,
      batches: stats.batches,
      bytes: stats.bytes,
      compression: flags.compression,
      verdict: { exit_code: verdict.exitCode, why: verdict.why },
    };
    if (sourceError instanceof UsageError && summary.rows === 0) throw sourceError;
    if (!log.json) printEnqueueSummary(summary, rowErrors);
    const stopped = run.end.kind === 'kafka' ? { stopped: { reason: (run.end.error as Error).message ?? String(run.end.error) } } : {};
    const step = nextStep({ command: 'enqueue', verdict, counts, sources: [source, topic], repeat, name: cliName, ...stopped, ...(outputs.failure === undefined ? {} : { outputPath: outputs.failure.path }) });
    log.finish(endOf(run), summary, verdict, flags.json === true, step);
    if (outputs.failure !== undefined) err(`${paint.red('error')} cannot write the report ${outputs.failure.path}: ${outputs.failure.error.message}`);
    if (!log.json) printNextStep(step);
    if (sourceError !== undefined) throw sourceError as Error;
    if (verdict.exitCode !== EXIT.ok) throw new ExitError(verdict.exitCode);
  } finally {
    log.close();
    signals.dispose();
    await outputs?.abort();
    await producer?.close().catch(() => undefined);
  }
}
