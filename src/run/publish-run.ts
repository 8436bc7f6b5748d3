import { performance } from 'node:perf_hooks';
import { estimateRowCount } from '../catalog/count-rows.js';
import type { CatalogOptions } from '../catalog/types.js';
import { rowsNotRead, unreadOf } from '../catalog/unread.js';
import { libraryName, UsageError } from '../errors.js';
import { checkFanOut, type FanOut } from '../prepare/fan-out.js';
import type { ListingSender, PublishOptions } from '../publish/engine-types.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { RunLocks } from '../publish/run-lock.js';
import { SummaryCounter, type RunMeta } from '../report/index.js';
import { redactSourceName } from '../secret-url.js';
import { VERSION } from '../version.js';
import { openPipeline } from './pipeline.js';
import { checkPublishOutputs, lockPublishFiles, publishFilesOf, readPublishSelection, retryNotices } from './publish-files.js';
import { type PublishNotice, type PublishResult, type PublishSpec, type PublishWatcher } from './publish-spec.js';
import { RunOutputs } from './run-outputs.js';
import { takeOutcomes } from './take-outcomes.js';
import { publishVerdict, type RunVerdict } from './verdict.js';
import { nextStep, type NextStep, type NextStepInput } from './next-step.js';
import type { PublishEnd } from '../publish/engine-types.js';
import type { OutputFailure } from './run-outputs.js';

/** What a next step says of how the run stopped: the service's reason and fix, the output that failed; the words it repeats. */
function stepDetails(spec: PublishSpec, end: PublishEnd, failure: OutputFailure | undefined): Pick<NextStepInput, 'stopped' | 'outputPath' | 'repeat'> {
  return {
    ...(end.kind === 'systemic' ? { stopped: { reason: end.reason, hint: end.hint } } : {}),
    ...(failure === undefined ? {} : { outputPath: failure.path }),
    ...(spec.outputs?.repeat === undefined ? {} : { repeat: spec.outputs.repeat }),
  };
}

/** The listings an interrupted run did not read: with a fan-out, the rows not read times the marketplaces, plus the marketplaces of the last row read not reached. */
async function listingsNotRead(sources: readonly string[], options: CatalogOptions, listingsRead: number, fanOut: FanOut | undefined): Promise<number | undefined> {
  // The lines left in local files after the rows read, as a cheap count.
  const lines = await estimateRowCount([...sources], options).catch(() => undefined);
  if (lines === undefined) return undefined;
  if (fanOut === undefined) return Math.max(0, lines - listingsRead);
  return Math.max(0, lines - fanOut.taken) * fanOut.factor + fanOut.copiesLeft;
}

/**
 * One publish run, whole, as `listings publish` runs it: the outputs checked, the journal and state paths decided (per
 * working directory, sources, target and shard), the locks taken, the journal, state and retry report read, the
 * catalog opened and its settings checked, every row sent through the engine and handed to the summary, the reports,
 * the journal and the state, then the outputs closed with the verdict and the locks released.
 *
 * Nothing is printed: the result says how it went (summary, the verdict with its exit code, the first row errors, an
 * output that failed, the notices), and `watcher` hears it as it goes. A catalog that cannot be read from its first
 * row, a setting missing, an output that cannot be opened or a lock held by another run throw, before anything is
 * sent; a source that stops part-way is `result.sourceError`, with the source's verdict.
 *
 * ```ts
 * const result = await runPublishSpec({ kind: 'publish', source: { sources: ['catalog.csv'], catalog: {} },
 *   target: { defaults, sender: client, identity: runTarget({ baseUrl, apiKey, marketplace, shape }) },
 *   selection: { changedOnly: true }, outputs: { reports: ['run.csv'] } });
 * process.exitCode = result.verdict.exitCode;
 * ```
 */
export async function runPublishSpec(spec: PublishSpec, watcher: PublishWatcher = {}): Promise<PublishResult> {
  const startedAt = performance.now();
  const started = new Date();
  const dryRun = spec.kind === 'dry-run';
  const { sources } = spec.source;
  const reports = spec.outputs?.reports ?? [];
  // Default journal and state paths are kept under `cwd`; a path given is, like every path, the process's to resolve.
  const here = process.cwd();
  const cwd = spec.outputs?.cwd ?? here;
  const name = spec.outputs?.name ?? libraryName;
  const selection = spec.selection ?? {};
  // Marketplaces that are one in the shape's form: a configuration error, before anything is opened.
  checkFanOut(spec.target.defaults);
  const files = publishFilesOf(spec, cwd);
  await checkPublishOutputs(reports, files, here, name, sources);
  const sender: ListingSender | undefined = dryRun ? undefined : (spec.target.sender ?? (await spec.target.connect?.()));
  watcher.onStart?.();
  const notices: PublishNotice[] = [];
  const notice = (told: PublishNotice): void => {
    notices.push(told);
    watcher.onRunNotice?.(told);
  };
  // A write that fails mid-run stops the sending as an interrupt would, and is then told as what it is.
  const outputStop = new AbortController();
  const stop = watcher.stop === undefined ? outputStop.signal : AbortSignal.any([watcher.stop, outputStop.signal]);
  const interrupted = (): boolean => watcher.stop?.aborted === true;
  let outputs: RunOutputs | undefined;
  let locks: RunLocks | undefined;
  try {
    locks = await lockPublishFiles(files, here, name);
    for (const stale of locks.takenOver) notice({ kind: 'lock-taken-over', lockPath: stale.lockPath, pid: stale.holder.pid, startedAt: stale.holder.startedAt });
    // A setting that no default or first row gives is one error here, before any output is opened. With several
    // marketplaces each row that names none goes to each: one listing (and report line) per marketplace.
    const catalogOptions: CatalogOptions = {
      ...spec.source.catalog,
      ...(watcher.stop === undefined ? {} : { signal: watcher.stop }),
      ...(watcher.onNotice === undefined ? {} : { onNotice: watcher.onNotice }),
    };
    const pipeline = await openPipeline(sources, { defaults: spec.target.defaults, catalog: catalogOptions, name });
    const { catalog, fanOut } = pipeline;
    const { state, published, retry, notices: selectionNotices } = await readPublishSelection(spec, files);
    for (const told of selectionNotices) notice(told);
    const target = files.target;
    outputs = await RunOutputs.open({
      reports,
      // A run that does not resume starts a fresh journal, so nightly runs do not grow it without end; what an
      // earlier run published and this one sends again is answered from the Idempotency-Key, not created twice.
      ...(files.journal !== undefined && target !== undefined ? { journal: { path: files.journal, header: { source: sources.join('\n'), startedAt: new Date().toISOString(), target }, fresh: selection.resume !== true } } : {}),
      ...(files.state !== undefined && target !== undefined && state !== undefined ? { state: { path: files.state, target, state } } : {}),
      onFailure: (failure) => {
        watcher.onOutputFailure?.(failure);
        outputStop.abort();
      },
    });
    const { journal } = outputs;
    const { onSettled } = watcher;
    const options: PublishOptions = {
      ...spec.sending,
      dryRun,
      stop,
      ...(watcher.abandon === undefined ? {} : { abandon: watcher.abandon }),
      ...(sender === undefined ? {} : { sender }),
      ...(selection.shard === undefined ? {} : { shard: selection.shard }),
      ...(state === undefined ? {} : { changedOnly: state }),
      ...(published === undefined ? {} : { alreadyPublished: published }),
      ...(retry === undefined ? {} : { retryOnly: (row) => retry.selects(row) }),
      ...(journal === undefined ? {} : { journal }),
      ...(watcher.onEvent === undefined ? {} : { onEvent: watcher.onEvent }),
      // At answer time, not at the in-order release: one row waiting for a retry does not hold the others' count back.
      ...(onSettled === undefined ? {} : { onSettled }),
    };
    const run = pipeline.publish(options);
    await watcher.onSending?.({ readProgress: () => catalog.progress(), stats: () => run.stats(), expectedSkips: (published?.size ?? 0) + (state?.size ?? 0), fanOutFactor: fanOut?.factor ?? 1 });
    const counter = new SummaryCounter();
    const rowErrors: RowOutcome[] = [];
    let sourceError: unknown;
    try {
      sourceError = await takeOutcomes(run, { counter, onOutcome: watcher.onOutcome, outputs, rowErrors });
    } finally {
      watcher.onRowsDone?.();
    }
    const stats = run.stats();
    const traffic = { requests: stats.requests, throttled: stats.throttled, overloaded: stats.overloaded, timeouts: stats.timeouts, peakConcurrency: stats.peakInFlight };
    // An interrupted run counts the rest of its sources; a source that stopped, the rest after the row that stopped it.
    const unread = sourceError === undefined ? undefined : await unreadOf(sourceError, catalog.progress(), counter.rows, catalog.notOpened?.() ?? []);
    const notRead = !run.readToEnd && interrupted() && sourceError === undefined ? await listingsNotRead(sources, spec.source.catalog, counter.rows, fanOut) : rowsNotRead(unread);
    const planned = counter.summary(Math.round(performance.now() - startedAt), [...reports], traffic, { complete: run.readToEnd, interrupted: interrupted(), notRead, unread });
    // Decided before the reports close, so that they can say it; an output that fails to close, or a signal while
    // they close, still changes it (the report saying otherwise is the one dropped, or another one).
    const verdict = publishVerdict({ end: run.end, summary: planned, outputFailure: outputs.failure, dryRun });
    const atClose = outputs.failure === undefined;
    const kept = journal !== undefined && files.journal !== undefined;
    const stepOf = (verdictNow: RunVerdict, written: readonly string[]): NextStep | null =>
      nextStep({ command: 'publish', verdict: verdictNow, counts: planned, sources, reports: written, journal: kept, dryRun, name, ...stepDetails(spec, run.end, outputs?.failure) });
    const meta: RunMeta = {
      sources: sources.map(redactSourceName),
      profile: spec.outputs?.profile,
      target: dryRun ? undefined : spec.target.label,
      marketplace: spec.target.defaults.marketplace ?? spec.target.defaults.marketplaces?.join(','),
      startedAt: started,
      toolVersion: VERSION,
      exitCode: verdict.exitCode,
      why: verdict.why,
      dryRun,
      name,
      nextStep: stepOf(verdict, reports),
      ...(run.end.kind === 'systemic' ? { stopped: { reason: run.end.reason, hint: run.end.hint } } : {}),
    };
    await outputs.close(planned, meta);
    const final = publishVerdict({ end: run.end, summary: { ...planned, interrupted: interrupted() }, outputFailure: outputs.failure, dryRun });
    // A report that could not be written is not listed as written.
    const written = outputs.reportsWritten;
    const summary = { ...planned, report: reports.filter((path) => written.includes(path)) };
    // A catalog whose columns cannot work (no SKU column, say) read no row: the error is the whole story.
    if (sourceError instanceof UsageError && summary.rows === 0) throw sourceError;
    if (retry !== undefined) for (const told of retryNotices(retry, selection.retryFailed ?? '')) notice(told);
    const failure = outputs.failure;
    return {
      summary,
      verdict: final,
      end: run.end,
      nextStep: stepOf(final, summary.report),
      ...(failure === undefined ? {} : { outputFailure: { ...failure, atClose } }),
      notices,
      rowErrors,
      ...(sourceError === undefined ? {} : { sourceError }),
      ...(journal === undefined || files.journal === undefined ? {} : { journalPath: files.journal }),
      ...(files.state === undefined ? {} : { statePath: files.state }),
    };
  } finally {
    await outputs?.abort();
    await locks?.release();
  }
}
