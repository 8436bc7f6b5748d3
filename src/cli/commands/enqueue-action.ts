import { kafkaSecurityFromEnv } from '../../stream/kafka-security.js';
import type { RowOutcome } from '../../publish/outcome.js';
import { checkEnqueueReports, enqueueTopic, runEnqueueSpec, type EnqueueSummary } from '../../run/enqueue-run.js';
import { redactSourceName } from '../../secret-url.js';
import { printRunStop } from '../next-step.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, paint } from '../output.js';
import { count, duration } from '../progress.js';
import { trapSignals } from '../signals.js';
import { noticePrinter } from '../notices.js';
import { part } from '../summary.js';
import { rowErrorLine } from '../../report/summary-text.js';
import { catalogOptionsFrom } from '../catalog-options.js';
import { openRunLog } from '../log-events.js';
import { runStartOf } from '../../run/run-start.js';
import { cliName } from '../setting-flags.js';
import type { LoadedSettings } from '../settings.js';
import type { EnqueueFlags } from './enqueue-flags.js';

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

/** `listings enqueue SOURCE kafka://BROKERS/TOPIC`: flags to an `EnqueueSpec`, the run (src/run/enqueue-run.ts) watched by the terminal, its result printed. */
export async function runEnqueue(source: string, topic: string, flags: EnqueueFlags, load: () => Promise<LoadedSettings>, repeat: readonly string[] = []): Promise<void> {
  const { where } = enqueueTopic(topic);
  checkEnqueueReports(flags.report);
  const catalog = await catalogOptionsFrom(flags);
  const security = kafkaSecurityFromEnv(process.env, flags.kafkaTls);
  const loaded = await load();
  const log = openRunLog({ format: flags.logFormat, verbose: false, debug: false, path: where });
  const quiet = flags.quiet === true || log.json;
  const signals = trapSignals((n) => err(n === 1 ? 'stopping: no new rows are read; waiting for the batch in flight' : 'abandoning'));
  try {
    const spec = { source: { sources: [source], catalog }, topic, target: { defaults: loaded.defaults }, kafka: { batchSize: flags.batchSize, compression: flags.compression, security }, outputs: { reports: flags.report, profile: loaded.profile, name: cliName, repeat } };
    const result = await runEnqueueSpec(spec, {
      stop: signals.stop,
      onNotice: noticePrinter(loaded.defaults, err),
      onStart: () => log.start(runStartOf('enqueue', [redactSourceName(source)], loaded, { origin: undefined, sandbox: false, dryRun: false }, { topic: where, batch_size: flags.batchSize, compression: flags.compression, report: flags.report })),
      onLog: (level, message) => {
        if (level !== 'info' && !quiet) err(`${level === 'error' ? paint.red('error') : paint.yellow('warning')} ${message}`);
      },
      onSending: () => {
        if (!quiet) err(`enqueuing ${redactSourceName(source)} to ${where} (batches of up to ${count(flags.batchSize)}, ${flags.compression})`);
      },
      onOutcome: (outcome) => log.outcome(outcome),
    });
    const { summary, verdict, outputFailure, sourceError, end, nextStep: step } = result;
    if (!log.json) printEnqueueSummary(summary, result.rowErrors);
    log.finish({ kind: end.kind }, summary, verdict, flags.json === true, step);
    if (outputFailure !== undefined) err(`${paint.red('error')} cannot write the report ${outputFailure.path}: ${outputFailure.error.message}`);
    printRunStop(step, !log.json, sourceError);
    if (verdict.exitCode !== EXIT.ok) throw new ExitError(verdict.exitCode);
  } finally {
    log.close();
    signals.dispose();
  }
}
