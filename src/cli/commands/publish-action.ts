import { performance } from 'node:perf_hooks';
import { estimateRowCount } from '../../catalog/count-rows.js';
import { unreadOf } from '../../catalog/unread.js';
import { checkFanOut, type FanOut } from '../../prepare/fan-out.js';
import type { PublishOptions } from '../../publish/engine-types.js';
import { parseShard } from '../../publish/shard.js';
import { RetryBudget } from '../../publish/retry-budget.js';
import { DEFAULT_RETRY_POLICY } from '../../publish/retry-policy.js';
import { defaultJournalPath, readPublished, type JournalRead } from '../../publish/journal.js';
import { defaultStatePath, loadState, STATE_RULES, type StateRead } from '../../publish/state-file.js';
import { acquireRunLocks, type RunLocks } from '../../publish/run-lock.js';
import { describeTarget, runTarget, sandboxTarget, type RunTarget } from '../../publish/run-target.js';
import { RetrySelection, SummaryCounter, readRetryRows, reportFormatOf, reportRules, type RunMeta } from '../../report/index.js';
import type { RowOutcome } from '../../publish/outcome.js';
import { UsageError } from '../../errors.js';
import { checkOutputs } from '../../fs/check-outputs.js';
import { VERSION } from '../../version.js';
import { redactSourceName } from '../../secret-url.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, paint } from '../output.js';
import { ProgressDisplay, progressMode } from '../progress.js';
import { trapSignals } from '../signals.js';
import { noticePrinter } from '../notices.js';
import { printRunEnd, printSummary, ROW_ERRORS_SHOWN } from '../summary.js';
import { githubActionsRun } from '../github-actions.js';
import { count } from '../progress.js';
import type { CatalogOptions } from '../../catalog/types.js';
import type { LoadedSettings } from '../settings.js';
import { catalogOptionsFrom } from '../catalog-options.js';
import type { PublishFlags } from './publish-flags.js';
import { openPipeline } from '../../run/pipeline.js';
import { RunOutputs, type OutputFailure } from '../../run/run-outputs.js';
import { publishVerdict, type RunVerdict } from '../../run/verdict.js';
import { openRunLog, publishStartOf } from '../log-events.js';
import { openEndpoint, type Endpoint } from './open-endpoint.js';
import { cliName } from '../setting-flags.js';

/** What the flags say before anything is opened; every mistake here is a usage error (exit 2), nothing sent. */
function checkFlags(flags: PublishFlags): void {
  if (flags.resume && flags.journal === false) throw new UsageError('--resume reads the journal: it cannot be combined with --no-journal');
  if (flags.state !== undefined && !flags.changedOnly) throw new UsageError('--state is the state of --changed-only: add --changed-only');
  for (const path of flags.report) reportFormatOf(path);
}

/** Where the run publishes; only the runs that keep a journal or a state need it (a dry run without them does not). */
function targetOf(flags: PublishFlags, loaded: LoadedSettings): RunTarget {
  const { marketplace, shape } = loaded.settings;
  if (flags.sandbox) return sandboxTarget(marketplace, shape);
  return runTarget({ baseUrl: loaded.baseUrl(), apiKey: loaded.apiKey(), marketplace, shape });
}

/** Say what of the journal and the state was not applied, and why; nothing when all of it was. */
function noticeForeignState(journalPath: string, read: JournalRead | undefined, statePath: string, state: StateRead | undefined, target: RunTarget): void {
  const other = (t: RunTarget | null | undefined): string => (t ? `another target, ${describeTarget(t)}` : 'no target (an older version wrote it)');
  if (read !== undefined && !read.found) {
    err(`warning: --resume: there is no journal at ${journalPath}, so every row is sent (journals are kept per working directory, source and target; run from the first run's directory or pass its --journal)`);
  } else if (read !== undefined && read.foreignRuns > 0) {
    err(`notice: ${journalPath} holds ${read.foreignRuns === 1 ? 'a run' : `${read.foreignRuns} runs`} against ${other(read.foreignTarget)}: their rows are not taken as published on ${describeTarget(target)}`);
  }
  if (state?.foreignTarget !== undefined) {
    err(`notice: the state file ${statePath} belongs to ${other(state.foreignTarget)}: it is ignored (every row counts as new on ${describeTarget(target)}) and this run's state replaces it`);
  }
}

/** The lines left in local files after the rows read, as a cheap count of what an interrupted run did not read. */
async function rowsNotRead(sources: string[], options: CatalogOptions, rowsRead: number): Promise<number | undefined> {
  const lines = await estimateRowCount(sources, options).catch(() => undefined);
  return lines === undefined ? undefined : Math.max(0, lines - rowsRead);
}

/**
 * The listings an interrupted run did not read: with a fan-out, the input rows not read times the marketplaces,
 * plus the marketplaces of the last row read that were not reached.
 */
async function listingsNotRead(sources: string[], options: CatalogOptions, listingsRead: number, fanOut: FanOut | undefined): Promise<number | undefined> {
  if (fanOut === undefined) return rowsNotRead(sources, options, listingsRead);
  const rows = await rowsNotRead(sources, options, fanOut.taken);
  return rows === undefined ? undefined : rows * fanOut.factor + fanOut.copiesLeft;
}

/** What `--retry-failed` did beyond the rows the report listed, and rows it listed that the source no longer has. */
function noticeRetry(retry: RetrySelection, path: string): void {
  if (retry.beyondReport > 0) {
    err(`notice: --retry-failed: ${count(retry.beyondReport)} ${retry.beyondReport === 1 ? 'row' : 'rows'} that ${path} never reached (its run stopped before reading them) ${retry.beyondReport === 1 ? 'was' : 'were'} sent as well`);
  }
  const missing = retry.listed - retry.matched;
  if (missing > 0) {
    err(`warning: --retry-failed: ${count(missing)} ${missing === 1 ? 'row' : 'rows'} that ${path} lists as failed or not attempted ${missing === 1 ? 'is' : 'are'} not at ${missing === 1 ? 'its' : 'their'} place (line and SKU) in this source, so ${missing === 1 ? 'it was' : 'they were'} not sent: has the source changed since? (--changed-only compares by content instead)`);
  }
}

/** Why the run stopped at a write that failed (or, `atClose`, which output failed once every row was sent), what was kept, and what to do. */
function printOutputFailure(failure: OutputFailure, journalPath: string | undefined, atClose: boolean): void {
  const code = (failure.error as NodeJS.ErrnoException).code;
  const why = `${failure.error.message}${code !== undefined && !failure.error.message.includes(code) ? ` (${code})` : ''}`;
  err(`${paint.red('error')} cannot write the ${failure.role} ${failure.path}: ${why}; ${atClose ? 'it failed as the run closed, after the rows were sent' : 'sending stopped'}`);
  const next = 'after making room, run again with --resume (rows sent twice are answered from their Idempotency-Key, not created again)';
  if (failure.role === 'journal') err(`${paint.dim('hint')}  the journal keeps the rows written before the failure; ${next}`);
  else if (failure.role === 'state file') err(`${paint.dim('hint')}  the previous state is kept whole: the next --changed-only run sends this run's rows again, harmlessly`);
  else if (journalPath !== undefined) err(`${paint.dim('hint')}  the report was dropped (a cut report would read as complete); the journal ${journalPath} has every row sent: ${next}`);
  else err(`${paint.dim('hint')}  the report was dropped (a cut report would read as complete), and no journal was kept: the summary above is the record`);
}

/** What the reports say about the run beyond its rows: sources with their credentials masked, the target a host (a base URL may carry credentials), never the key. */
function runMetaOf(sources: string[], flags: PublishFlags, loaded: LoadedSettings, endpoint: Endpoint | undefined, startedAt: Date, verdict: RunVerdict): RunMeta {
  const target = endpoint === undefined ? undefined : endpoint.sandbox !== undefined ? 'sandbox (in-process)' : URL.parse(loaded.baseUrl())?.host;
  return { sources: sources.map(redactSourceName), profile: loaded.profile, target, marketplace: loaded.settings.marketplace, startedAt, toolVersion: VERSION, exitCode: verdict.exitCode, why: verdict.why, dryRun: flags.dryRun === true, name: cliName };
}

/** `listings publish SOURCE...`: the whole run, from flags to exit code. */
export async function runPublish(sources: string[], flags: PublishFlags, load: () => Promise<LoadedSettings>): Promise<void> {
  const startedAt = performance.now();
  const started = new Date();
  checkFlags(flags);
  const shard = flags.shard === undefined ? undefined : parseShard(flags.shard);
  const catalogOptions = await catalogOptionsFrom(flags);
  const loaded = await load();
  // Marketplaces that are one in the shape's form: a configuration error, before anything is opened.
  checkFanOut(loaded.defaults);
  const { concurrency, max_concurrency: maxConcurrency } = loaded.settings;
  const dryRun = flags.dryRun === true;
  const cwd = process.cwd();
  const sourceKey = sources.join('\n');
  const keepsJournal = !dryRun && flags.journal !== false;
  const target = keepsJournal || flags.changedOnly ? targetOf(flags, loaded) : undefined;
  // A shard has its own default journal and state, so the jobs of a matrix on one machine do not share them.
  const statePath = flags.state ?? (target === undefined ? '' : defaultStatePath(sourceKey, cwd, target, shard));
  const journalPath = typeof flags.journal === 'string' ? flags.journal : target === undefined ? '' : defaultJournalPath(sourceKey, cwd, target, shard);
  await checkOutputs(
    [
      ...flags.report.map((path) => ({ path, role: 'report', rules: reportRules(path) })),
      ...(keepsJournal ? [{ path: journalPath, role: 'journal', rules: { private: true } }] : []),
      ...(flags.changedOnly && !dryRun ? [{ path: statePath, role: 'state file (--changed-only)', rules: STATE_RULES }] : []),
    ],
    cwd,
  );
  const endpoint = dryRun ? undefined : await openEndpoint(flags, loaded, concurrency ?? maxConcurrency);
  let progress: ProgressDisplay | undefined;
  // --log-format json, --verbose, --debug: see log-events.ts. In json mode there is no progress line.
  const log = openRunLog({ format: flags.logFormat ?? 'human', verbose: flags.verbose === true, debug: flags.debug === true, path: endpoint?.client.endpoint.path ?? '/v1/listings', note: (line) => (progress === undefined ? err(line) : progress.note(line)) });
  const quiet = flags.quiet === true || log.json;
  log.start(publishStartOf(sources, flags, loaded, endpoint?.client.endpoint.origin));
  log.settings(loaded.values, loaded.sources, dryRun || flags.sandbox ? undefined : loaded.apiKey());
  const signals = trapSignals((count) => {
    const line = count === 1 ? 'stopping: no new rows are sent; waiting for the requests in flight (Ctrl-C again to abandon them)' : 'abandoning the requests in flight';
    if (progress === undefined) err(line);
    else progress.note(line);
  });
  // A write that fails mid-run stops the sending as an interrupt would, and is then told as what it is.
  const outputStop = new AbortController();
  const stop = AbortSignal.any([signals.stop, outputStop.signal]);
  let outputs: RunOutputs | undefined;
  let locks: RunLocks | undefined;
  try {
    // One run at a time per journal and state file: a second is refused (exit 2) before anything is sent.
    locks = await acquireRunLocks([
      ...(keepsJournal ? [{ path: journalPath, role: 'journal', elsewhere: '--journal PATH' }] : []),
      ...(flags.changedOnly && !dryRun ? [{ path: statePath, role: 'state file', elsewhere: '--state PATH' }] : []),
    ], cwd);
    for (const stale of locks.takenOver) err(`notice: took over the lock ${stale.lockPath} of pid ${stale.holder.pid} (started ${stale.holder.startedAt}), which is no longer running`);
    // Catalog notices (header names matched loosely, columns not read, a field no row gives): once each, on stderr,
    // above the progress line once there is one.
    const onNotice = noticePrinter(loaded.defaults, (line) => (progress === undefined ? err(line) : progress.note(line)));
    // A setting that no flag, env, profile or first row gives is one error (exit 2) here, before any output is opened.
    // With several marketplaces each row that names none goes to each: one listing (and report line) per marketplace.
    const pipeline = await openPipeline(sources, { defaults: loaded.defaults, catalog: { ...catalogOptions, signal: signals.stop, onNotice } });
    const { catalog, fanOut } = pipeline;
    const [stateRead, journalRead, retryReport] = await Promise.all([
      flags.changedOnly && target !== undefined ? loadState(statePath, target) : undefined,
      flags.resume && target !== undefined ? readPublished(journalPath, target) : undefined,
      flags.retryFailed === undefined ? undefined : readRetryRows(flags.retryFailed),
    ]);
    if (target !== undefined) noticeForeignState(journalPath, journalRead, statePath, stateRead, target);
    const retry = retryReport === undefined ? undefined : new RetrySelection(retryReport, sources);
    const state = stateRead?.state;
    const published = journalRead?.published;
    outputs = await RunOutputs.open({
      reports: flags.report,
      // A run that does not resume starts a fresh journal, so nightly runs do not grow it without end; what an
      // earlier run published and this one sends again is answered from the Idempotency-Key, not created twice.
      ...(keepsJournal && target !== undefined ? { journal: { path: journalPath, header: { source: sourceKey, startedAt: new Date().toISOString(), target }, fresh: !flags.resume } } : {}),
      ...(flags.changedOnly && !dryRun && target !== undefined && state !== undefined ? { state: { path: statePath, target, state } } : {}),
      onFailure: (failure) => {
        log.outputFailed(failure.role, failure.path, failure.error);
        outputStop.abort();
      },
    });
    const { journal } = outputs;
    const options: PublishOptions = {
      ...(concurrency === undefined ? { maxConcurrency } : { concurrency }),
      ...(flags.giveUpAfter === undefined ? {} : { giveUpAfterMs: flags.giveUpAfter * 1000 }),
      retryPolicy: { ...DEFAULT_RETRY_POLICY, maxAttempts: flags.maxAttempts },
      retryBudget: new RetryBudget(),
      dryRun,
      stop,
      abandon: signals.abandon,
      ...(endpoint === undefined ? {} : { sender: endpoint.client }),
      ...(flags.rate === undefined ? {} : { rate: flags.rate }),
      ...(flags.maxErrors === undefined ? {} : { maxErrors: flags.maxErrors }),
      ...(shard === undefined ? {} : { shard }),
      ...(state === undefined ? {} : { changedOnly: state }),
      ...(published === undefined ? {} : { alreadyPublished: published }),
      ...(retry === undefined ? {} : { retryOnly: (row) => retry.selects(row) }),
      ...(journal === undefined ? {} : { journal }),
      ...(log.observer === undefined ? {} : { onEvent: log.observer }),
      // Progress counts a row when its answer came: one row waiting for a retry does not freeze it.
      onSettled: (outcome) => progress?.tick(outcome),
    };
    log.mark('opened the catalog and the outputs');
    const run = pipeline.publish(options);
    progress = await ProgressDisplay.start({
      mode: progressMode(quiet),
      readProgress: () => catalog.progress(),
      rowsRead: () => run.stats().read,
      expectedSkips: (published?.size ?? 0) + (state?.size ?? 0),
      ...(dryRun ? {} : { flow: () => run.stats() }),
    });
    const display = progress;
    if (progressMode(quiet) !== 'off') {
      const factor = fanOut?.factor ?? 1;
      estimateRowCount(sources, catalogOptions).then((total) => display.setTotal(total === undefined ? undefined : total * factor), () => undefined);
    }
    const counter = new SummaryCounter();
    // In GitHub Actions: the failed and invalid rows to annotate (up to a cap) and their kinds of error.
    const github = githubActionsRun('publish');
    const rowErrors: RowOutcome[] = [];
    let sourceError: unknown;
    try {
      for await (const outcome of run) {
        counter.add(outcome);
        github?.add(outcome);
        log.outcome(outcome);
        await outputs.write(outcome);
        if ((outcome.outcome === 'failed' || outcome.outcome === 'invalid') && rowErrors.length < ROW_ERRORS_SHOWN) rowErrors.push(outcome);
      }
    } catch (error) {
      if (run.end.kind !== 'source') throw error;
      sourceError = error;
    } finally {
      progress.stop();
      log.runDone();
    }
    const stats = run.stats();
    const traffic = { requests: stats.requests, throttled: stats.throttled, overloaded: stats.overloaded, timeouts: stats.timeouts, peakConcurrency: stats.peakInFlight };
    const interrupted = signals.received() !== undefined;
    // An interrupted run counts the rest of its sources; a source that stopped, the rest after the row that stopped it.
    const unread = sourceError === undefined ? undefined : await unreadOf(sourceError, catalog.progress(), counter.rows);
    const notRead = !run.readToEnd && interrupted && sourceError === undefined ? await listingsNotRead(sources, catalogOptions, counter.rows, fanOut) : unread?.rows_estimate ?? undefined;
    const reading = { complete: run.readToEnd, interrupted, notRead, unread };
    const planned = counter.summary(Math.round(performance.now() - startedAt), flags.report, traffic, reading);
    // Decided before the reports close, so that they can say it; an output that fails to close, or a signal while
    // they close, still changes it (the report saying otherwise is the one dropped, or another one).
    const verdict = publishVerdict({ end: run.end, summary: planned, outputFailure: outputs.failure, dryRun });
    const atClose = outputs.failure === undefined;
    await outputs.close(planned, runMetaOf(sources, flags, loaded, endpoint, started, verdict));
    const final = publishVerdict({ end: run.end, summary: { ...planned, interrupted: signals.received() !== undefined }, outputFailure: outputs.failure, dryRun });
    const failure = outputs.failure;
    // A report that could not be written is not listed as written: the error below names it.
    const written = outputs.reportsWritten;
    const summary = { ...planned, report: flags.report.filter((path) => written.includes(path)) };
    // A catalog whose columns cannot work (no SKU column, say) read no row: the error is the whole story.
    if (sourceError instanceof UsageError && summary.rows === 0) throw sourceError;
    if (retry !== undefined) noticeRetry(retry, flags.retryFailed ?? '');
    github?.finishPublish(summary, { dryRun, sources, end: run.end, verdict: final });
    if (log.json) log.summary(summary, run.end, flags.json === true, final);
    else printSummary(summary, { json: flags.json === true, dryRun, rowErrors });
    if (failure !== undefined) {
      printOutputFailure(failure, journal === undefined || failure.role === 'journal' ? undefined : journalPath, atClose);
      throw new ExitError(final.exitCode);
    }
    if (!log.json) printRunEnd(run.end, summary, flags.journal !== false && !dryRun);
    // The error itself is the last line; the one catch gives it the verdict's code (report-error.ts).
    if (sourceError !== undefined) throw sourceError as Error;
    if (final.exitCode !== EXIT.ok) throw new ExitError(final.exitCode);
  } finally {
    progress?.stop();
    log.close();
    signals.dispose();
    await outputs?.abort();
    await locks?.release();
    if (signals.abandon.aborted) await endpoint?.client.destroy();
    else await endpoint?.client.close();
    await endpoint?.sandbox?.close();
  }
}
