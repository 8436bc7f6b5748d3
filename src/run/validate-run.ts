import { performance } from 'node:perf_hooks';
import { checkSources, openCatalog } from '../catalog/open-catalog.js';
import type { Draft, ReadProgress } from '../catalog/types.js';
import { rowsNotRead, unreadOf, type Unread } from '../catalog/unread.js';
import { libraryName, SourceError } from '../errors.js';
import { checkOutputs } from '../fs/check-outputs.js';
import { checkFanOut } from '../prepare/fan-out.js';
import { shapeSends } from '../prepare/notice-matters.js';
import { createPreparer } from '../prepare/preparer.js';
import type { PreparedRow } from '../prepare/types.js';
import type { RowOutcome } from '../publish/outcome.js';
import { selectRow, unsent } from '../publish/row-selection.js';
import { reportFormatOf, reportRules, SummaryCounter, type RunMeta, type RunSummary } from '../report/index.js';
import { redactSourceName } from '../secret-url.js';
import { VERSION } from '../version.js';
import { createDraftsCheck } from './checked-drafts.js';
import { nextStep, type NextStep } from './next-step.js';
import { openRequestsOut } from './requests-out.js';
import { RunOutputs, type OutputFailure } from './run-outputs.js';
import type { RunOutputSpec, RunSourceSpec, RunTargetSpec, RunWatcher } from './spec.js';
import { ValidateTally, type ValidateCounts, type ValidationError } from './validate-tally.js';
import { endingOfError, NO_ROWS, verdictOf, type RunEnding, type RunVerdict } from './verdict.js';
import { checkOutputsAreNotSources } from './outputs-not-sources.js';

export type { ValidateCounts, ValidationError } from './validate-tally.js';

/** The errors a validation shows unless told otherwise; the rest are counted. */
export const SHOW_ERRORS = 50;

/** The reason of a row read after the error limit stopped the validation: the engine's, for the same stop. */
const NOT_VALIDATED = 'max errors reached';

/** What a running validation tells whoever watches it; none may throw, none feeds back into the run. */
export interface ValidateWatcher extends Pick<RunWatcher, 'onNotice' | 'onOutcome'> {
  /** Each listing as the preparer judged it: valid with its request, invalid with its issues, or skipped. */
  onRow?: (row: PreparedRow) => void;
  /** Each error shown (the first `showErrors`), as it is found. */
  onError?: (error: ValidationError) => void;
}

/** A validation: the shared parts (no service: nothing is sent), and what only a validation has. */
export interface ValidateSpec {
  source: RunSourceSpec;
  target: Pick<RunTargetSpec, 'defaults'>;
  /** Reports (every row `validated`, `invalid`, `skipped` or `not_attempted`); `marketplace` as the settings give it, for their metadata. */
  outputs?: RunOutputSpec & Pick<RunMeta, 'marketplace'>;
  /** Write the request body of each valid row here, one JSON a line. */
  requestsOut?: string;
  /** Stop validating once this many rows were invalid: the rest are read and reported `not_attempted`. */
  maxErrors?: number;
  /** The errors shown (told to `onError`, kept in the result) at most; the rest are counted. Default 50. */
  showErrors?: number;
  /** Keep the errors shown in the result (default true); a caller that prints them from `onError` need not. */
  keepErrors?: boolean;
  watcher?: ValidateWatcher;
}

/** What a validation came to. */
export interface ValidateResult {
  counts: ValidateCounts;
  /** The errors shown, in input order (empty unless `keepErrors`). */
  errors: readonly ValidationError[];
  errorsShown: number;
  errorsNotShown: number;
  /** False when a source could not be read to its end. */
  complete: boolean;
  /** What a source that could not be read to its end left unread. */
  unread: Unread | undefined;
  /** The error that cut a source short, after the rows read before it. */
  sourceError: SourceError | undefined;
  /** A report that could not be written: the reports are dropped. */
  outputFailure: OutputFailure | undefined;
  /** How the run ended, for its verdict and its log. */
  ending: RunEnding;
  /** The command that continues the work, when it did not end well (src/run/next-step.ts). */
  nextStep: NextStep | null;
  /** The summary the reports got (its `report` the ones written), when outcomes were counted (reports, `onOutcome`). */
  summary: RunSummary | undefined;
  verdict: RunVerdict;
}

/** A listing read once the validation stopped, as the engine reports one read once a publish stopped. */
function notValidated(index: number, draft: Draft): RowOutcome {
  const { sku, marketplace } = draft.values;
  const row: PreparedRow = { kind: 'skipped', location: draft.location, reason: NOT_VALIDATED, ...(sku === undefined ? {} : { sku }), ...(marketplace === undefined ? {} : { marketplace }) };
  return unsent(index, row, 'not_attempted', NOT_VALIDATED);
}

function endingOf(cut: SourceError | undefined, failure: OutputFailure | undefined, stoppedAfter: number | undefined): RunEnding {
  if (failure !== undefined) return { kind: 'output', output: failure.role, path: failure.path, reason: failure.error.message };
  if (cut !== undefined) return endingOfError(cut);
  return stoppedAfter === undefined ? { kind: 'complete' } : { kind: 'max-errors', failed: stoppedAfter };
}

/**
 * Validates catalogs as `listings validate` does, sending nothing: the sources read one after the other (a source is
 * opened once the one before was read) through the drafts stage of a publish run (the settings judged by the first
 * rows, the fan-out to several marketplaces) and the preparer. Each row is an outcome for the reports and
 * `onOutcome`, as a dry run gives it. A source that cannot be read to its end keeps the rows read before it and ends
 * the run (`sourceError`); a configuration that cannot work throws, before anything is written.
 *
 * ```ts
 * const result = await runValidateSpec({ source: { sources: ['catalog.csv'], catalog: {} }, target: { defaults } });
 * process.exitCode = result.verdict.exitCode; // result.errors: where and what
 * ```
 */
export async function runValidateSpec(spec: ValidateSpec): Promise<ValidateResult> {
  const startedAt = performance.now();
  const started = new Date();
  const { sources } = spec.source;
  const { defaults } = spec.target;
  const watcher = spec.watcher ?? {};
  const reports = spec.outputs?.reports ?? [];
  for (const path of reports) reportFormatOf(path);
  const reportsCwd = spec.outputs?.cwd ?? process.cwd();
  await checkOutputs(reports.map((path) => ({ path, role: 'report', rules: reportRules(path) })), reportsCwd);
  await checkOutputsAreNotSources(
    [
      ...reports.map((path) => ({ path, role: 'report', cwd: reportsCwd })),
      ...(spec.requestsOut === undefined ? [] : [{ path: spec.requestsOut, role: `${(spec.outputs?.name ?? libraryName)('requestsOut')} file`, cwd: process.cwd() }]),
    ],
    sources,
  );
  checkFanOut(defaults);
  const prepare = createPreparer(defaults, { name: spec.outputs?.name ?? libraryName });
  // A publish run's drafts stage, applied source by source rather than to one catalog of all: the settings are still
  // judged once, by the first source with rows.
  const checkDrafts = createDraftsCheck(defaults);
  const tally = new ValidateTally(spec.showErrors ?? SHOW_ERRORS, spec.keepErrors ?? true, watcher.onError);
  const catalogOptions = {
    ...spec.source.catalog,
    sends: spec.source.catalog.sends ?? shapeSends(defaults.shape),
    ...(watcher.onNotice === undefined ? {} : { onNotice: watcher.onNotice }),
  };
  const requests = spec.requestsOut === undefined ? undefined : await openRequestsOut(spec.requestsOut, spec.outputs?.name);
  let outputs: RunOutputs | undefined;
  // Outcomes are made only for whoever reads them: the reports and the log.
  const counter = reports.length > 0 || watcher.onOutcome !== undefined ? new SummaryCounter() : undefined;
  const record = async (row: PreparedRow | Draft): Promise<void> => {
    if (counter === undefined) return;
    let outcome: RowOutcome;
    if ('kind' in row) {
      const selection = selectRow(counter.rows, row, { dryRun: true });
      if (selection.kind !== 'finished') return;
      outcome = selection.outcome;
    } else outcome = notValidated(counter.rows, row);
    counter.add(outcome);
    watcher.onOutcome?.(outcome);
    await outputs?.write(outcome);
  };
  let cut: SourceError | undefined;
  let stoppedAfter: number | undefined;
  // How far through the source being read reading has got.
  let progress = (): ReadProgress => ({ bytesRead: 0 });
  // The sources after the one being read: never opened, should it stop the run.
  let notOpened: readonly string[] = [];
  try {
    outputs = reports.length === 0 ? undefined : await RunOutputs.open({ reports, onFailure: () => undefined });
    await checkSources(sources, catalogOptions);
    for (const [index, source] of sources.entries()) {
      notOpened = sources.slice(index + 1);
      // The first source that cannot be opened fails the run before anything is read, as a publish does, and so does
      // a later local file (checkSources); a later remote one stops it like a source that cannot be read to its end.
      const first = index === 0 ? await openCatalog(source, catalogOptions) : undefined;
      try {
        const catalog = first ?? (await openCatalog(source, catalogOptions));
        progress = () => catalog.progress();
        // With several marketplaces each row is checked once per marketplace (a row naming its own, once).
        for await (const draft of (await checkDrafts(catalog.drafts)).drafts) {
          if (stoppedAfter !== undefined) {
            // The rest is read, not validated, so that every row is reported once.
            tally.addNotValidated(draft.rows);
            await record(draft);
          } else {
            const row = prepare(draft);
            tally.add(row);
            watcher.onRow?.(row);
            if (row.kind === 'ready' && requests) await requests.write(row.request);
            await record(row);
            if (spec.maxErrors !== undefined && tally.counts.invalid >= spec.maxErrors) stoppedAfter = tally.counts.invalid;
          }
          // A report that cannot be written stops the reading: the verdict names it.
          if (outputs?.failure !== undefined) break;
        }
      } catch (error) {
        if (!(error instanceof SourceError)) throw error;
        cut = error;
        break;
      }
      if (outputs?.failure !== undefined) break;
    }
  } catch (error) {
    await outputs?.abort();
    throw error;
  } finally {
    await requests?.close();
  }
  const { counts } = tally;
  const unread = cut === undefined ? undefined : await unreadOf(cut, progress(), counts.inputRows, notOpened);
  const verdictCounts = { ...NO_ROWS, rows: counts.rows, validated: counts.valid, invalid: counts.invalid, skipped: counts.skipped, not_attempted: counts.notValidated };
  let ending = endingOf(cut, outputs?.failure, stoppedAfter);
  let verdict = verdictOf('validate', ending, verdictCounts);
  const reading = { complete: cut === undefined && outputs?.failure === undefined, interrupted: false, notRead: rowsNotRead(unread), unread };
  const summary = counter?.summary(Math.round(performance.now() - startedAt), [...reports], undefined, reading);
  const name = spec.outputs?.name ?? libraryName;
  const repeat = spec.outputs?.repeat === undefined ? {} : { repeat: spec.outputs.repeat };
  const stepOf = (verdictNow: RunVerdict, failure: OutputFailure | undefined): NextStep | null =>
    nextStep({ command: 'validate', verdict: verdictNow, counts: { failed: 0, invalid: counts.invalid, not_attempted: 0 }, sources, name, ...repeat, ...(failure === undefined ? {} : { outputPath: failure.path }) });
  if (outputs !== undefined && summary !== undefined) {
    // Decided before the reports close, so that they can say it; a report that fails to close changes it.
    const meta = { sources: sources.map(redactSourceName), profile: spec.outputs?.profile, marketplace: spec.outputs?.marketplace, startedAt: started, toolVersion: VERSION, exitCode: verdict.exitCode, why: verdict.why, name, nextStep: stepOf(verdict, outputs.failure) };
    await outputs.close(summary, meta);
    ending = endingOf(cut, outputs.failure, stoppedAfter);
    verdict = verdictOf('validate', ending, verdictCounts);
  }
  const written = outputs?.reportsWritten ?? [];
  return {
    counts,
    errors: tally.errors,
    errorsShown: tally.shown,
    errorsNotShown: tally.notShown,
    complete: cut === undefined,
    unread,
    sourceError: cut,
    outputFailure: outputs?.failure,
    ending,
    nextStep: stepOf(verdict, outputs?.failure),
    summary: summary === undefined ? undefined : { ...summary, report: reports.filter((path) => written.includes(path)) },
    verdict,
  };
}
