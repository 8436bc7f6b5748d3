import { performance } from 'node:perf_hooks';
import { once } from 'node:events';
import type { Command } from 'commander';
import type { FieldIssue } from '../../contract/issues.js';
import type { PreparedRow } from '../../prepare/types.js';
import type { ReadProgress } from '../../catalog/types.js';
import { ConfigError, formatLocation, SourceError, UsageError, type Location } from '../../errors.js';
import { openOutput } from '../../fs/output-target.js';
import { loadSettings } from '../settings.js';
import { catalogOptionsFrom, type CatalogFlags } from '../catalog-options.js';
import { declareFlags } from '../flags.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { endingOfError, NO_ROWS, verdictOf } from '../../run/verdict.js';
import { err, out, paint, workflowLine } from '../output.js';
import { count } from '../progress.js';
import { noticePrinter } from '../notices.js';
import { githubActionsRun } from '../github-actions.js';
import { inert } from '../../printable.js';
import { stringifyJson } from '../../json-number.js';
import type { OutputFailure } from '../../run/run-outputs.js';
import type { RowOutcome } from '../../publish/outcome.js';
import type { RunEnding } from '../../run/verdict.js';
import { redactSourceName } from '../../secret-url.js';
import { VERSION } from '../../version.js';

interface ValidateFlags extends CatalogFlags {
  maxErrors: number;
  json?: boolean;
  out?: string;
  report: string[];
  quiet?: boolean;
  logFormat?: 'human' | 'json';
}

/** How a validation ended: an output that failed first, then a source cut short. */
function validateEnding(cut: SourceError | undefined, failure: OutputFailure | undefined): RunEnding {
  if (failure !== undefined) return { kind: 'output', output: failure.role, path: failure.path, reason: failure.error.message };
  return cut === undefined ? { kind: 'complete' } : endingOfError(cut);
}

/** One error as `--json` shows it; a JSON source's record index goes in `record`, with `line` null. */
interface JsonError {
  source: string;
  line: number | null;
  record?: number;
  /** The marketplace of the listing (one row may be several listings, one per marketplace); null when it has none. */
  marketplace: string | null;
  field: string;
  message: string;
}

function jsonError(location: Location, issue: FieldIssue, marketplace: string | undefined): JsonError {
  return {
    source: location.source,
    line: location.line ?? null,
    ...(location.line === undefined && location.record !== undefined ? { record: location.record } : {}),
    marketplace: marketplace ?? null,
    field: issue.path,
    message: issue.message,
  };
}

/**
 * `catalog.csv:17: [EBAY_US] images_source[1]: not an absolute URL`: the listing's marketplace in brackets when it
 * has one (a row published to several marketplaces is checked once per marketplace); a record the parser could not
 * read has neither marketplace nor field.
 */
export function errorLine(location: Location, issue: FieldIssue, marketplace?: string): string {
  // The file name, the message (and a marketplace from the catalog) may quote outside text: shown on this one line,
  // never obeyed (see inert).
  const where = inert(formatLocation(location));
  const message = inert(issue.message);
  if (issue.path === '(record)') return `${where}: ${message}`;
  const on = marketplace === undefined ? '' : `[${inert(marketplace)}] `;
  return `${where}: ${on}${inert(issue.path)}: ${message}`;
}


/** The counts of a validation run, and the first errors up to the limit. */
class Tally {
  rows = 0;
  inputRows = 0;
  valid = 0;
  invalid = 0;
  /** Rows that are not listings by design (a WooCommerce grouped product): neither valid nor errors. */
  skipped = 0;
  shown = 0;
  notShown = 0;
  readonly errors: JsonError[] = [];

  constructor(
    private readonly limit: number,
    private readonly json: boolean,
    private readonly print: (line: string) => void = out,
  ) {}

  add(row: PreparedRow): void {
    this.rows++;
    this.inputRows += row.rows ?? 1;
    if (row.kind === 'ready') {
      this.valid++;
      return;
    }
    if (row.kind === 'skipped') {
      this.skipped++;
      return;
    }
    this.invalid++;
    for (const issue of row.issues) {
      if (this.shown >= this.limit) {
        this.notShown++;
        continue;
      }
      this.shown++;
      if (this.json) this.errors.push(jsonError(row.location, issue, row.marketplace));
      else this.print(errorLine(row.location, issue, row.marketplace));
    }
  }

  summary(): string {
    const head = this.inputRows === this.rows ? `${count(this.rows)} ${this.rows === 1 ? 'row' : 'rows'}` : `${count(this.inputRows)} input rows, ${count(this.rows)} listings`;
    const invalid = `${count(this.invalid)} invalid`;
    const skipped = this.skipped > 0 ? `, ${count(this.skipped)} skipped (not listings)` : '';
    return `${head}: ${paint.green(`${count(this.valid)} valid`)}, ${this.invalid > 0 ? paint.red(invalid) : invalid}${skipped}`;
  }
}

/** An NDJSON file written with back-pressure; opened before reading so a bad path fails first. */
async function openNdjson(path: string) {
  const fail = (error: Error) => new UsageError(`--out ${path}: cannot write it (${(error as NodeJS.ErrnoException).code ?? error.message})`);
  let handle;
  try {
    handle = await openOutput(path, { role: '--out file', truncate: true });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw fail(error as Error);
  }
  const stream = handle.createWriteStream();
  let failure: Error | undefined;
  stream.on('error', (error) => (failure = error));
  return {
    async write(value: unknown): Promise<void> {
      if (failure) throw fail(failure);
      if (!stream.write(`${stringifyJson(value)}\n`)) await once(stream, 'drain');
    },
    async close(): Promise<void> {
      stream.end();
      if (!stream.writableFinished && !failure) await once(stream, 'finish');
      if (failure) throw fail(failure);
    },
  };
}

async function validate(sources: string[], flags: ValidateFlags, command: Command): Promise<void> {
  const startedAt = performance.now();
  const started = new Date();
  // Loaded here, not at start-up: what the reports and the log of a run need.
  const [{ checkOutputs }, { reportFormatOf, reportRules, SummaryCounter }, { RunOutputs }, { selectRow }, { openRunLog, runStartOf }] = await Promise.all([
    import('../../fs/check-outputs.js'),
    import('../../report/index.js'),
    import('../../run/run-outputs.js'),
    import('../../publish/row-selection.js'),
    import('../log-events.js'),
  ]);
  for (const path of flags.report) reportFormatOf(path);
  const options = await catalogOptionsFrom(flags);
  const settings = await loadSettings(command.opts());
  await checkOutputs(flags.report.map((path) => ({ path, role: 'report', rules: reportRules(path) })), process.cwd());
  // --log-format json: the events publish and stream write (src/run/log-events.ts); the row lines and the human summary are not printed.
  const log = openRunLog({ format: flags.logFormat ?? 'human', verbose: false, debug: false, path: '/v1/listings' });
  const quiet = flags.quiet === true || log.json;
  log.start(runStartOf('validate', sources, settings, { origin: undefined, sandbox: false, dryRun: false }, { max_errors: flags.maxErrors === Infinity ? 'all' : flags.maxErrors, report: flags.report }));
  const [{ openCatalog }, { createPreparer }, { createDraftsCheck }, { checkFanOut }, { unreadOf, unreadText }] = await Promise.all([
    import('../../catalog/open-catalog.js'),
    import('../../prepare/preparer.js'),
    import('../../run/checked-drafts.js'),
    import('../../prepare/fan-out.js'),
    import('../../catalog/unread.js'),
  ]);
  checkFanOut(settings.defaults);
  const prepare = createPreparer(settings.defaults);
  // Notices (header names matched loosely, columns not read, fields no row gives) go to stderr, once each.
  const onNotice = noticePrinter(settings.defaults);
  // A publish run's drafts stage, applied source by source rather than to one catalog of all (a source is opened only
  // once the one before was read); the settings are still judged once, by the first source with rows.
  const checkDrafts = createDraftsCheck(settings.defaults);
  // In GitHub Actions: the error list in a collapsed group, the invalid rows annotated, a step summary.
  const github = githubActionsRun('validate');
  const print = quiet ? () => undefined : github?.grouped('listings validate: errors', out, (line) => workflowLine('stdout', line));
  const tally = new Tally(flags.maxErrors, flags.json === true, print);
  const requests = flags.out === undefined ? undefined : await openNdjson(flags.out);
  // Each row as an outcome (validated, invalid, skipped), as a dry run gives it: for the reports and the log, only when asked for.
  const outputs = flags.report.length === 0 ? undefined : await RunOutputs.open({ reports: flags.report, onFailure: () => undefined });
  const counter = log.json || outputs !== undefined ? new SummaryCounter() : undefined;
  const record = async (row: PreparedRow): Promise<void> => {
    if (counter === undefined) return;
    const selection = selectRow(counter.rows, row, { dryRun: true });
    if (selection.kind !== 'finished') return;
    const outcome: RowOutcome = selection.outcome;
    counter.add(outcome);
    log.outcome(outcome);
    await outputs?.write(outcome);
  };
  // A source that cannot be read to its end: the rows read before the place are counted and shown, then its error.
  let cut: SourceError | undefined;
  // How far through the source being read reading has got.
  let progress = (): ReadProgress => ({ bytesRead: 0 });
  try {
    for (const source of sources) {
      const catalog = await openCatalog(source, { ...options, onNotice });
      progress = () => catalog.progress();
      try {
        // With several marketplaces each row is checked once per marketplace (a row naming its own, once).
        for await (const draft of (await checkDrafts(catalog.drafts)).drafts) {
          const row = prepare(draft);
          tally.add(row);
          github?.addPrepared(row);
          if (row.kind === 'ready' && requests) await requests.write(row.request);
          await record(row);
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
    github?.endGroup();
  }
  const unread = cut === undefined ? undefined : await unreadOf(cut, progress(), tally.inputRows);
  const counts = { ...NO_ROWS, rows: tally.rows, validated: tally.valid, invalid: tally.invalid, skipped: tally.skipped };
  let verdict = verdictOf('validate', validateEnding(cut, outputs?.failure), counts);
  const summary = counter?.summary(Math.round(performance.now() - startedAt), flags.report, undefined, { complete: cut === undefined && outputs?.failure === undefined, interrupted: false, notRead: unread?.rows_estimate ?? undefined, unread });
  if (outputs !== undefined && summary !== undefined) {
    // Decided before the reports close, so that they can say it; a report that fails to close changes it.
    await outputs.close(summary, { sources: sources.map(redactSourceName), profile: settings.profile, marketplace: settings.settings.marketplace, startedAt: started, toolVersion: VERSION, exitCode: verdict.exitCode, why: verdict.why });
    verdict = verdictOf('validate', validateEnding(cut, outputs.failure), counts);
  }
  if (flags.json) {
    const counts = { rows: tally.rows, input_rows: tally.inputRows, valid: tally.valid, invalid: tally.invalid, skipped: tally.skipped, errors: tally.errors, errors_not_shown: tally.notShown, complete: cut === undefined };
    const json = { ...counts, ...(unread === undefined ? {} : { unread }), verdict: { exit_code: verdict.exitCode, why: verdict.why } };
    out(JSON.stringify(json));
  } else if (tally.notShown > 0 && !quiet) {
    out(`... and ${count(tally.notShown)} more errors`);
  }
  github?.finishValidate({ rows: tally.rows, valid: tally.valid, invalid: tally.invalid, skipped: tally.skipped, complete: cut === undefined }, sources, verdict);
  const failure = outputs?.failure;
  if (log.json && summary !== undefined) log.finish({ kind: cut === undefined ? 'completed' : 'source' }, { ...summary, report: flags.report.filter((path) => outputs?.reportsWritten.includes(path)) }, verdict, false);
  else err(tally.summary());
  if (unread !== undefined) err(`stopped: ${unreadText(unread)}`);
  if (failure !== undefined) {
    err(`${paint.red('error')} cannot write the ${failure.role} ${failure.path}: ${failure.error.message}; the report was dropped (a cut report would read as complete)`);
    throw new ExitError(verdict.exitCode);
  }
  // The error itself is the last line; the one catch gives it the verdict's code (report-error.ts).
  if (cut !== undefined) throw cut;
  if (verdict.exitCode !== EXIT.ok) throw new ExitError(verdict.exitCode);
}

export function registerValidate(program: Command): void {
  const command = program
    .command('validate')
    .description('check catalogs against the contract, sending nothing: exit 0 when every row is valid, 1 when any is not, 4 when a source cannot be read')
    .argument('<source...>', 'catalog: a file, - for stdin, an http(s):// URL, s3://bucket/key or s3://bucket/prefix/');
  declareFlags(command, 'validate').action(async (sources: string[], flags: ValidateFlags, self: Command) => {
    // From here on every stderr line is an event, the errors of loading the settings included.
    if (flags.logFormat === 'json') (await import('../log-events.js')).captureStderrAsJson();
    await validate(sources, flags, self);
  });
}
