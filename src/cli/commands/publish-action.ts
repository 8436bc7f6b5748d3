import { estimateRowCount } from '../../catalog/count-rows.js';
import { checkFanOut } from '../../prepare/fan-out.js';
import { parseShard, type Shard } from '../../publish/shard.js';
import { reportFormatOf } from '../../report/index.js';
import { UsageError } from '../../errors.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, paint } from '../output.js';
import { ProgressDisplay, progressMode } from '../progress.js';
import { trapSignals } from '../signals.js';
import { noticePrinter } from '../notices.js';
import { printRunEnd, printSummary } from '../summary.js';
import { printNextStep, printRunStop } from '../next-step.js';
import { githubActionsRun } from '../github-actions.js';
import type { CatalogOptions } from '../../catalog/types.js';
import type { LoadedSettings } from '../settings.js';
import { catalogOptionsFrom } from '../catalog-options.js';
import type { PublishFlags } from './publish-flags.js';
import { outputFailureText, publishNoticeText, sandboxJournalPath } from '../../run/publish-notices.js';
import { runPublishSpec } from '../../run/publish-run.js';
import { sendingPolicyOf } from '../../run/sending-policy.js';
import { publishNeedsTarget, publishTargetOf } from '../../run/publish-files.js';
import type { PublishSpec, PublishWatcher } from '../../run/publish-spec.js';
import { openRunLog } from '../log-events.js';
import { publishStartOf } from '../../run/run-start.js';
import { openEndpoint, sandboxFaultsOf } from './open-endpoint.js';
import type { Endpoint } from '../../run/open-sender.js';
import { cliName } from '../setting-flags.js';

/** What the flags say before anything is opened; every mistake here is a usage error (exit 2), nothing sent. */
function checkFlags(flags: PublishFlags): void {
  if (flags.resume && flags.journal === false) throw new UsageError('--resume reads the journal: it cannot be combined with --no-journal');
  if (flags.state !== undefined && !flags.changedOnly) throw new UsageError('--state is the state of --changed-only: add --changed-only');
  for (const path of flags.report) reportFormatOf(path);
}

/** The run the flags describe; `connect` opens the service once the outputs are checked. */
function publishSpecOf(sources: string[], flags: PublishFlags, loaded: LoadedSettings, catalog: CatalogOptions, shard: Shard | undefined, connect: () => Promise<Endpoint>, repeat: readonly string[]): PublishSpec {
  const kind = flags.dryRun === true ? 'dry-run' : 'publish';
  const selection = {
    ...(flags.resume === true ? { resume: true } : {}),
    ...(flags.journal === undefined ? (flags.sandbox === true ? { journal: sandboxJournalPath(sources, process.cwd(), loaded.settings.marketplace, loaded.settings.shape, shard) } : {}) : { journal: flags.journal }),
    ...(flags.changedOnly === true ? { changedOnly: true } : {}),
    ...(flags.state === undefined ? {} : { state: flags.state }),
    ...(shard === undefined ? {} : { shard }),
    ...(flags.retryFailed === undefined ? {} : { retryFailed: flags.retryFailed }),
  };
  const { concurrency, max_concurrency: maxConcurrency, base_url: baseUrl, marketplace, shape } = loaded.settings;
  const label = flags.sandbox === true ? 'sandbox (in-process)' : URL.parse(baseUrl ?? '')?.host;
  return {
    kind,
    source: { sources, catalog },
    target: {
      defaults: loaded.defaults,
      // Only the runs that keep a journal or a state need the target's identity (a dry run without them does not).
      ...(publishNeedsTarget(kind, selection) ? { identity: publishTargetOf(flags.sandbox === true, marketplace, shape, () => ({ baseUrl: loaded.baseUrl(), apiKey: loaded.apiKey() })) } : {}),
      ...(label === undefined ? {} : { label }),
      connect: async () => (await connect()).client,
    },
    selection,
    sending: { ...sendingPolicyOf({ concurrency, maxConcurrency, rate: flags.rate, giveUpAfterSeconds: flags.giveUpAfter, maxAttempts: flags.maxAttempts }), ...(flags.maxErrors === undefined ? {} : { maxErrors: flags.maxErrors }) },
    outputs: { reports: flags.report, cwd: process.cwd(), profile: loaded.profile, name: cliName, repeat },
  };
}

/** `listings publish SOURCE...`: flags to a run spec, the run (src/run/publish-run.ts) watched by the terminal, its result printed, its exit code. */
export async function runPublish(sources: string[], flags: PublishFlags, load: () => Promise<LoadedSettings>, repeat: readonly string[] = []): Promise<void> {
  checkFlags(flags);
  await sandboxFaultsOf(flags);
  const shard = flags.shard === undefined ? undefined : parseShard(flags.shard);
  const catalogOptions = await catalogOptionsFrom(flags);
  const loaded = await load();
  // Marketplaces that are one in the shape's form: a configuration error, before the target is asked for a key.
  checkFanOut(loaded.defaults);
  const dryRun = flags.dryRun === true;
  let endpoint: Endpoint | undefined;
  const connect = async (): Promise<Endpoint> => (endpoint = await openEndpoint(flags, loaded, loaded.settings.concurrency ?? loaded.settings.max_concurrency));
  const spec = publishSpecOf(sources, flags, loaded, catalogOptions, shard, connect, repeat);
  let progress: ProgressDisplay | undefined;
  // Above the progress line once there is one.
  const note = (line: string): void => (progress === undefined ? err(line) : progress.note(line));
  // --log-format json, --verbose, --debug: see src/run/log-events.ts. In json mode there is no progress line.
  const log = openRunLog({ format: flags.logFormat ?? 'human', verbose: flags.verbose === true, debug: flags.debug === true, path: () => endpoint?.client.endpoint.path ?? '/v1/listings', note });
  const quiet = flags.quiet === true || log.json;
  const signals = trapSignals((received) => note(received === 1 ? 'stopping: no new rows are sent; waiting for the requests in flight (Ctrl-C again to abandon them)' : 'abandoning the requests in flight'));
  // In GitHub Actions: the failed and invalid rows to annotate (up to a cap) and their kinds of error.
  const github = githubActionsRun('publish');
  const watcher: PublishWatcher = {
    stop: signals.stop,
    abandon: signals.abandon,
    // Catalog notices (header names matched loosely, columns not read, a field no row gives): once each, on stderr.
    onNotice: noticePrinter(loaded.defaults, note),
    ...(log.observer === undefined ? {} : { onEvent: log.observer }),
    onStart: () => {
      log.start(publishStartOf(sources, flags, loaded, endpoint?.client.endpoint.origin));
      log.settings(loaded.values, loaded.sources, dryRun || flags.sandbox ? undefined : loaded.apiKey());
    },
    onRunNotice: (notice) => err(publishNoticeText(notice, cliName)),
    onOutputFailure: (failure) => log.outputFailed(failure.role, failure.path, failure.error),
    onSending: async (running) => {
      log.mark('opened the catalog and the outputs');
      const mode = progressMode(quiet);
      const display = await ProgressDisplay.start({ mode, readProgress: running.readProgress, rowsRead: () => running.stats().read, expectedSkips: running.expectedSkips, ...(dryRun ? {} : { flow: running.stats }) });
      progress = display;
      if (mode !== 'off') estimateRowCount(sources, catalogOptions).then((total) => display.setTotal(total === undefined ? undefined : total * running.fanOutFactor), () => undefined);
    },
    onSettled: (outcome) => progress?.tick(outcome),
    onOutcome: (outcome) => {
      github?.add(outcome);
      log.outcome(outcome);
    },
    onRowsDone: () => {
      progress?.stop();
      log.runDone();
    },
  };
  /** The run returned: every request it sent has its answer (or was cut off by an abandon). */
  let returned = false;
  try {
    const result = await runPublishSpec(spec, watcher);
    returned = true;
    const { summary, verdict, end, outputFailure, nextStep } = result;
    github?.finishPublish(summary, { dryRun, sources, end, verdict, nextStep });
    if (log.json) log.summary(summary, end, flags.json === true, verdict, nextStep);
    else printSummary(summary, { json: flags.json === true, dryRun, rowErrors: result.rowErrors, end, nextStep });
    if (outputFailure !== undefined) {
      const { message, hint } = outputFailureText(outputFailure, outputFailure.role === 'journal' ? undefined : result.journalPath, outputFailure.atClose, cliName);
      err(`${paint.red('error')} ${message}`);
      err(`${paint.dim('hint')}  ${hint}`);
      if (!log.json) printNextStep(nextStep);
      throw new ExitError(verdict.exitCode);
    }
    if (!log.json) printRunEnd(end, summary);
    if (!log.json && flags.sandbox === true && flags.journal === undefined && result.journalPath !== undefined) err(paint.dim(`journal of this try-out: ${result.journalPath} (a --sandbox run keeps none in .listings/)`));
    printRunStop(nextStep, !log.json, result.sourceError);
    if (verdict.exitCode !== EXIT.ok) throw new ExitError(verdict.exitCode);
  } finally {
    progress?.stop();
    log.close();
    signals.dispose();
    // After a run that returned, the connections are idle, and undici leaves idle connections unreferenced: the
    // process ends without closing them, and the OS closes them (on a 2 s service, 1,700 connections took 0.15-0.28 s
    // to close one by one, 0.11-0.15 s to destroy, none this way). A run that threw may still have requests out:
    // those are cut.
    if (!returned) await endpoint?.client.destroy();
    await endpoint?.sandbox?.close();
  }
}
