import type { Command } from 'commander';
import { loadSettings } from '../settings.js';
import { catalogOptionsFrom, type CatalogFlags } from '../catalog-options.js';
import { declareFlags } from '../flags.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, out, paint, workflowLine } from '../output.js';
import { count } from '../progress.js';
import { noticePrinter } from '../notices.js';
import { githubActionsRun } from '../github-actions.js';
import { errorLine } from '../../report/summary-text.js';
import { cliName } from '../setting-flags.js';
import { printNextStep, printRunStop } from '../next-step.js';
import { NOT_REPEATED, repeatedFlags } from '../repeat-flags.js';
import type { ValidateResult, ValidationError } from '../../run/validate-run.js';
import { CATALOG_SOURCES_HELP } from '../../catalog/sources/source-kind.js';

interface ValidateFlags extends CatalogFlags {
  /** Stop after this many invalid rows; `all` (Infinity): no stop, and every error shown unless --show-errors says otherwise. */
  maxErrors?: number;
  showErrors: number;
  json?: boolean;
  out?: string;
  report: string[];
  quiet?: boolean;
  logFormat?: 'human' | 'json';
}

/** `7 rows: 2 valid, 5 invalid`, with the skipped rows and those the error limit left unvalidated when there are any. */
function summaryLine({ counts }: ValidateResult): string {
  const head = counts.inputRows === counts.rows ? `${count(counts.rows)} ${counts.rows === 1 ? 'row' : 'rows'}` : `${count(counts.inputRows)} input rows, ${count(counts.rows)} listings`;
  const invalid = `${count(counts.invalid)} invalid`;
  const skipped = counts.skipped > 0 ? `, ${count(counts.skipped)} skipped (not listings)` : '';
  const left = counts.notValidated > 0 ? `, ${count(counts.notValidated)} not validated` : '';
  return `${head}: ${paint.green(`${count(counts.valid)} valid`)}, ${counts.invalid > 0 ? paint.red(invalid) : invalid}${skipped}${left}`;
}

/** The old `--max-errors N` limited the errors printed; it now stops the validation, as it stops a publish. */
function noticeMaxErrors(flags: ValidateFlags, command: Command): void {
  if (flags.maxErrors === undefined || flags.maxErrors === Infinity || command.getOptionValueSource('showErrors') === 'cli') return;
  const n = count(flags.maxErrors);
  err(`notice: --max-errors ${n} stops validating after ${n} invalid ${flags.maxErrors === 1 ? 'row' : 'rows'} (the rest are not validated), as it stops a publish; the errors printed are limited by --show-errors (now ${count(flags.showErrors)})`);
}

async function validate(sources: string[], flags: ValidateFlags, command: Command): Promise<void> {
  const [{ runValidateSpec }, { validateJsonOf }, { openRunLog }, { runStartOf }, { unreadText }] = await Promise.all([
    import('../../run/validate-run.js'),
    import('../../run/validate-json.js'),
    import('../log-events.js'),
    import('../../run/run-start.js'),
    import('../../catalog/unread.js'),
  ]);
  // `--max-errors all` as it always was: every error printed, unless --show-errors says otherwise.
  const showAll = flags.maxErrors === Infinity && command.getOptionValueSource('showErrors') !== 'cli';
  const showErrors = showAll ? Infinity : flags.showErrors;
  const maxErrors = flags.maxErrors === Infinity ? undefined : flags.maxErrors;
  const catalog = await catalogOptionsFrom(flags);
  const settings = await loadSettings(command.opts());
  // --log-format json: the events publish and stream write (src/run/log-events.ts); the row lines and the human summary are not printed.
  const log = openRunLog({ format: flags.logFormat ?? 'human', verbose: false, debug: false, path: '/v1/listings' });
  const quiet = flags.quiet === true || log.json;
  noticeMaxErrors(flags, command);
  log.start(runStartOf('validate', sources, settings, { origin: undefined, sandbox: false, dryRun: false }, { max_errors: maxErrors ?? null, show_errors: showErrors === Infinity ? 'all' : showErrors, report: flags.report }));
  // In GitHub Actions: the error list in a collapsed group, the invalid rows annotated, a step summary.
  const github = githubActionsRun('validate');
  const print = quiet ? () => undefined : (github?.grouped('listings validate: errors', out, (line) => workflowLine('stdout', line)) ?? out);
  const json = flags.json === true;
  let result: ValidateResult;
  try {
    result = await runValidateSpec({
      source: { sources, catalog },
      target: { defaults: settings.defaults },
      outputs: { reports: flags.report, profile: settings.profile, marketplace: settings.settings.marketplace, name: cliName, repeat: repeatedFlags(command, NOT_REPEATED) },
      ...(flags.out === undefined ? {} : { requestsOut: flags.out }),
      ...(maxErrors === undefined ? {} : { maxErrors }),
      showErrors,
      keepErrors: json,
      watcher: {
        // Notices (header names matched loosely, columns not read, fields no row gives) go to stderr, once each.
        onNotice: noticePrinter(settings.defaults),
        ...(github === undefined ? {} : { onRow: (row) => github.addPrepared(row) }),
        ...(json ? {} : { onError: (error: ValidationError) => print(errorLine(error.location, error.issue, error.marketplace)) }),
        ...(log.json ? { onOutcome: (outcome) => log.outcome(outcome) } : {}),
      },
    });
  } finally {
    github?.endGroup();
  }
  const { counts, verdict, unread, outputFailure: failure, ending, summary, nextStep: step } = result;
  if (json) out(JSON.stringify({ ...validateJsonOf(result), next_step: step }));
  else if (result.errorsNotShown > 0 && !quiet) out(`... and ${count(result.errorsNotShown)} more errors`);
  github?.finishValidate({ rows: counts.rows, valid: counts.valid, invalid: counts.invalid, skipped: counts.skipped, notValidated: counts.notValidated, complete: result.complete }, sources, verdict, step);
  if (log.json && summary !== undefined) {
    const how = ending.kind === 'max-errors' ? { kind: 'max-errors', failed: ending.failed } : { kind: result.complete ? 'completed' : 'source' };
    log.finish(how, summary, verdict, false, step);
  } else err(summaryLine(result));
  if (ending.kind === 'max-errors' && !log.json) err(`${paint.red('stopped')} after ${count(ending.failed)} invalid ${ending.failed === 1 ? 'row' : 'rows'} (--max-errors); ${count(counts.notValidated)} ${counts.notValidated === 1 ? 'row' : 'rows'} not validated`);
  if (unread !== undefined) err(`stopped: ${unreadText(unread)}`);
  if (failure !== undefined) {
    err(`${paint.red('error')} cannot write the ${failure.role} ${failure.path}: ${failure.error.message}; the report was dropped (a cut report would read as complete)`);
    if (!log.json) printNextStep(step);
    throw new ExitError(verdict.exitCode);
  }
  printRunStop(step, !log.json, result.sourceError);
  if (verdict.exitCode !== EXIT.ok) throw new ExitError(verdict.exitCode);
}

export function registerValidate(program: Command): void {
  const command = program
    .command('validate')
    .description('check catalogs against the contract, sending nothing: exit 0 when every row is valid, 1 when any is not, 4 when a source cannot be read')
    .argument('<source...>', CATALOG_SOURCES_HELP);
  declareFlags(command, 'validate').action(async (sources: string[], flags: ValidateFlags, self: Command) => {
    // From here on every stderr line is an event, the errors of loading the settings included.
    if (flags.logFormat === 'json') (await import('../log-events.js')).captureStderrAsJson();
    await validate(sources, flags, self);
  });
}
