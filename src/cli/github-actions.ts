import { appendFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { formatLocation, SourceError, type Location } from '../errors.js';
import type { PublishEnd } from '../publish/engine-types.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { PreparedRow } from '../prepare/types.js';
import { errorClass, type RunSummary } from '../report/summary.js';
import { printable } from '../printable.js';
import { redact } from '../secrets.js';
import { err, workflowLine } from './output.js';
import { count, duration } from './progress.js';

/**
 * GitHub Actions output of a `publish` or `validate` run (only when `GITHUB_ACTIONS=true`): failed and invalid rows
 * as `::error` annotations, a markdown summary appended to `$GITHUB_STEP_SUMMARY`, and `::group::` around long
 * lists. The line and markdown builders are pure; {@link GithubRun} is the small writer around them.
 *
 * Workflow commands go to **stderr**. The runner obeys them on both streams (its ScriptHandler hands stdout and
 * stderr each to an OutputManager with the command manager), and stdout is this tool's result channel: `--json`
 * and `validate`'s error list are meant for pipes and files, which annotations would corrupt, and a redirected
 * stdout never reaches the runner, so they would be lost exactly then. The one exception is `::group::`, which
 * must travel with the lines it encloses: the runner reads the two pipes separately, so a group around stdout lines
 * (validate's error list) is written on stdout.
 */

/**
 * Rows annotated per run; the rest are counted in one warning. (The runner turns the first 10 errors of a step into
 * annotations on the run page, ExecutionContext's `_maxIssueCount`; every one is in the log.)
 */
export const ANNOTATIONS_MAX = 50;
/** Kinds of error listed in the step summary, most frequent first. */
export const ERROR_GROUPS_SHOWN = 10;
/** Kinds of error counted apart; beyond it, rows are counted as "other errors", so memory stays flat. */
export const ERROR_GROUPS_KEPT = 1_000;
/** Outside text longer than this is cut in an annotation or the summary (server messages are already short). */
const TEXT_MAX = 500;

/** True when running as a GitHub Actions step. */
export function inGithubActions(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

// ---------------------------------------------------------------------------------------------------------------
// Escaping

/**
 * Outside text (a SKU, a server's message, a catalog value) made inert for any log line: control characters and
 * line breaks written as `\uXXXX` (so nothing can start a line of its own, where `::command::` would be obeyed), and
 * GitHub's legacy `##[command]` marker, which the runner obeys anywhere in a line (actions/runner#4692), broken as
 * `\u0023#[`.
 */
export function inert(text: string): string {
  return printable(text, { lines: false }).replaceAll('##[', '\\u0023#[');
}

/** The data of a workflow command (after `::`), as GitHub's toolkit escapes it: `%`, CR, LF. */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** A property value of a workflow command (`file=...`): the data escapes, plus `:` and `,`, which end a property. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

/** One workflow command line: `::name key=value,...::data`, every part escaped. */
export function workflowCommand(name: string, properties: Record<string, string | number | undefined>, data: string): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`);
  return `::${name}${props.length === 0 ? '' : ` ${props.join(',')}`}::${escapeData(data)}`;
}

/** Cut outside text to `max` characters (after it was made printable). */
function cut(text: string, max = TEXT_MAX): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Outside text for a log line or an annotation: secrets masked, made inert, cut. */
function shown(text: string): string {
  return cut(inert(redact(text)));
}

/**
 * The punctuation with a meaning inside a line of GitHub markdown: code, emphasis, links and images, table cells,
 * strikethrough, math (`$`), emoji (`:name:`), issue references (`#12`), mentions, and the backslash itself. (Those
 * that only mean something at the start of a line, like `-` or `1.`, never come first here.)
 */
const MARKDOWN_PUNCTUATION = /[\\`*_{}[\]()#!|~$:@]/g;

/**
 * Outside text for markdown, HTML included: `&`, `<`, `>` as entities (no tag, no comment, no entity of its own),
 * markdown punctuation backslash-escaped (no emphasis, link, image or table cell break: GFM reads `\|` as a pipe
 * inside a cell), line breaks and control characters written out by {@link inert}.
 */
export function escapeMarkdown(text: string): string {
  return cut(inert(redact(text)))
    .replace(MARKDOWN_PUNCTUATION, (char) => `\\${char}`)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

// ---------------------------------------------------------------------------------------------------------------
// Row errors

/** A failed or invalid row, as annotations and the summary need it. */
export interface RowError {
  location: Location;
  sku?: string;
  outcome: 'failed' | 'invalid';
  /** How it is counted in `errors_by_status`: `400`, `network`, `timeout`, `invalid`. */
  cause: string;
  /** The last error (failed) or the field issues (invalid), on one line. */
  message: string;
}

/** The row error of a publish outcome; undefined for rows that did not fail. */
export function rowErrorOf(outcome: RowOutcome): RowError | undefined {
  if (outcome.outcome !== 'failed' && outcome.outcome !== 'invalid') return undefined;
  return {
    location: outcome.location,
    ...(outcome.sku === undefined ? {} : { sku: outcome.sku }),
    outcome: outcome.outcome,
    cause: errorClass(outcome) ?? outcome.outcome,
    message: outcome.error ?? outcome.reason ?? outcome.outcome,
  };
}

/** The row error of a validated row; undefined for rows that are valid or skipped. */
export function rowErrorOfPrepared(row: PreparedRow): RowError | undefined {
  if (row.kind !== 'invalid') return undefined;
  const message = row.issues.map((issue) => (issue.path === '(record)' ? issue.message : `${issue.path}: ${issue.message}`)).join('; ');
  return { location: row.location, ...(row.sku === undefined ? {} : { sku: row.sku }), outcome: 'invalid', cause: 'invalid', message };
}

/** Rows of one kind of error. */
export interface ErrorGroup {
  cause: string;
  message: string;
  rows: number;
  /** Where the first of them is. */
  first: Location;
}

/**
 * Collects the row errors of a run as they stream past, holding at most `cap` rows (the ones to annotate) and
 * `maxGroups` kinds of error: never the whole catalog.
 */
export class RowErrorCollector {
  /** The first `cap` row errors, in input order. */
  readonly first: RowError[] = [];
  /** Every row error seen. */
  total = 0;
  /** Rows whose kind of error came after `maxGroups` others: counted, not grouped. */
  ungrouped = 0;
  readonly #groups = new Map<string, ErrorGroup>();

  constructor(
    readonly cap: number = ANNOTATIONS_MAX,
    readonly maxGroups: number = ERROR_GROUPS_KEPT,
  ) {}

  add(error: RowError | undefined): void {
    if (error === undefined) return;
    this.total++;
    if (this.first.length < this.cap) this.first.push(error);
    const key = `${error.cause}\u0000${error.message}`;
    const group = this.#groups.get(key);
    if (group !== undefined) group.rows++;
    else if (this.#groups.size < this.maxGroups) this.#groups.set(key, { cause: error.cause, message: error.message, rows: 1, first: error.location });
    else this.ungrouped++;
  }

  /** Row errors not annotated. */
  get rest(): number {
    return this.total - this.first.length;
  }

  /** The kinds of error, most rows first (ties in order of first appearance). */
  groups(): ErrorGroup[] {
    return [...this.#groups.values()].sort((a, b) => b.rows - a.rows);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Annotations

/** A source that is a local file (the runner ties an annotation to a file of the repository, not to a URL). */
function isLocalFile(source: string): boolean {
  return source !== '-' && source !== '' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(source);
}

/**
 * The `file` of an annotation: relative to `GITHUB_WORKSPACE` when the file is inside it (as the repository names
 * it, whatever the step's `working-directory`), else absolute. None for a name that holds a CI command marker
 * (`##[`): no escaping of a property hides it from the runner, and the message still says where the row is.
 */
export function annotationFile(source: string, cwd: string, workspace?: string): string | undefined {
  const file = isAbsolute(source) ? source : resolve(cwd, source);
  const inside = workspace === undefined || workspace === '' ? undefined : relative(resolve(workspace), file);
  const named = inside !== undefined && inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : file;
  return /##[A-Za-z]*\[/.test(named) ? undefined : named;
}

/**
 * `::error file=catalog.csv,line=17,title=listings publish - failed row::catalog.csv:17: sku X: HTTP 400 ...`. A
 * local file is named by {@link annotationFile}; a URL or stdin gets no `file`, and a JSON record no `line`. The
 * message repeats the location, as the log shows only the message.
 */
export function annotationLine(command: string, error: RowError, cwd: string, workspace?: string): string {
  const { location } = error;
  const local = isLocalFile(location.source);
  const file = local ? annotationFile(location.source, cwd, workspace) : undefined;
  const sku = error.sku === undefined ? '' : ` sku ${shown(error.sku)}:`;
  const message = `${shown(formatLocation(location))}:${sku} ${error.outcome === 'invalid' ? 'invalid: ' : ''}${shown(error.message)}`;
  return workflowCommand('error', { file: file === undefined ? undefined : redact(file), line: file === undefined ? undefined : location.line, title: `listings ${command} - ${error.outcome} row` }, message);
}

/** Where every row error can be read in full. */
function whereAll(command: string, reports: readonly string[]): string {
  if (reports.length > 0) return `every row is in the report ${reports.join(', ')}`;
  return command === 'validate' ? 'listings validate --max-errors all lists them all' : 'write them all with --report FILE.csv';
}

/**
 * The annotation lines of a run: a group holding one `::error` per row up to the cap, then one `::warning` counting
 * the rest. Nothing when no row failed.
 */
export function annotationLines(command: string, errors: RowErrorCollector, cwd: string, reports: readonly string[] = [], workspace?: string): string[] {
  if (errors.total === 0) return [];
  const rows = (n: number) => `${count(n)} ${n === 1 ? 'row' : 'rows'}`;
  const validating = command === 'validate';
  const what = `${rows(errors.total)} ${validating ? 'invalid' : 'failed or invalid'}`;
  const title = `listings ${command}: ${what}${errors.rest > 0 ? `, the first ${count(errors.first.length)} annotated` : ''}`;
  const lines = [workflowCommand('group', {}, title), ...errors.first.map((error) => annotationLine(command, error, cwd, workspace)), '::endgroup::'];
  if (errors.rest > 0) {
    const text = `${what}: the first ${count(errors.first.length)} are annotated, ${count(errors.rest)} more are not (${whereAll(command, reports)})`;
    lines.push(workflowCommand('warning', { title: `listings ${command} - ${rows(errors.rest)} not annotated` }, redact(text)));
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------------------------
// Step summary (markdown)

/** What `publish` adds to its summary. */
export interface PublishSummaryOptions {
  dryRun: boolean;
  sources: readonly string[];
  /** Why the run stopped, when it did not complete. */
  end?: PublishEnd;
  /** The run's verdict (src/run/verdict.ts): the exit code and why. */
  verdict: Verdict;
}

/** A run's exit code and the one sentence that says why (`RunVerdict`). */
export interface Verdict {
  exitCode: number;
  why: string;
}

/** The counts of a `validate` run. */
export interface ValidateCounts {
  rows: number;
  valid: number;
  invalid: number;
  skipped: number;
  /** False when a source could not be read to its end. */
  complete: boolean;
}

function rowsText(n: number): string {
  return `${count(n)} ${n === 1 ? 'row' : 'rows'}`;
}

function heading(command: string, sources: readonly string[]): string {
  const shownSources = sources.slice(0, 3).map(escapeMarkdown).join(', ');
  const more = sources.length > 3 ? ` and ${count(sources.length - 3)} more` : '';
  return `### listings ${command}${sources.length === 0 ? '' : ` · ${shownSources}${more}`}`;
}

/** `Exit code 1: 3 rows failed; 97 published.` */
function verdictText(verdict: Verdict): string {
  return `Exit code ${verdict.exitCode}: ${escapeMarkdown(verdict.why)}.`;
}

function countsTable(rows: [label: string, value: number][], total: number): string[] {
  return ['| outcome | rows |', '|---|---:|', ...rows.map(([label, value]) => `| ${label} | ${count(value)} |`), `| **total** | **${count(total)}** |`];
}

/** The kinds of error, most frequent first, as a table; nothing when no row failed. */
export function errorGroupsMarkdown(errors: RowErrorCollector, shownGroups = ERROR_GROUPS_SHOWN): string[] {
  if (errors.total === 0) return [];
  const groups = errors.groups();
  const top = groups.slice(0, shownGroups);
  const lines = ['#### Top errors', '', '| rows | cause | error | first at |', '|---:|---|---|---|'];
  for (const group of top) lines.push(`| ${count(group.rows)} | ${escapeMarkdown(group.cause)} | ${escapeMarkdown(group.message)} | ${escapeMarkdown(formatLocation(group.first))} |`);
  const otherRows = groups.slice(shownGroups).reduce((sum, group) => sum + group.rows, 0) + errors.ungrouped;
  if (otherRows > 0) {
    const kinds = groups.length - top.length;
    lines.push('', `… and ${rowsText(otherRows)} with ${kinds > 0 ? `${count(kinds)} other ${kinds === 1 ? 'kind' : 'kinds'} of error` : 'other errors'}${errors.ungrouped > 0 ? ' (and more kinds than were counted apart)' : ''}.`);
  }
  return lines;
}

/** `1,234 requests, up to 96 at once; pushed back: 38 throttled (429), 2 overloaded (503)`. */
function trafficText(summary: RunSummary): string {
  const line = `${count(summary.requests)} ${summary.requests === 1 ? 'request' : 'requests'}, up to ${count(summary.peak_concurrency)} at once`;
  const busy = [
    summary.throttled > 0 ? `${count(summary.throttled)} throttled (429)` : '',
    summary.overloaded > 0 ? `${count(summary.overloaded)} overloaded (503)` : '',
    summary.timeouts > 0 ? `${count(summary.timeouts)} timed out` : '',
  ].filter((part) => part !== '');
  return busy.length === 0 ? line : `${line}; pushed back: ${busy.join(', ')}`;
}

/** Why a run stopped early, for the summary; undefined when it completed. */
function stopText(end: PublishEnd | undefined, summary: RunSummary): string | undefined {
  const left = summary.not_attempted > 0 ? `; ${rowsText(summary.not_attempted)} not attempted` : '';
  const unread = summary.complete ? '' : summary.total === null ? '; the rest of the source not read' : `; about ${rowsText(summary.total - summary.rows)} not read`;
  switch (end?.kind) {
    case 'systemic': {
      const detail = (end.error as { message?: unknown } | undefined)?.message;
      const cause = typeof detail === 'string' && !end.reason.includes(detail) ? `${detail}: ${end.reason}` : end.reason;
      return `**Stopped**: the service could not be used: ${escapeMarkdown(cause)}${left}${unread}.`;
    }
    case 'max-errors':
      return `**Stopped** after ${rowsText(end.failed)} failed (\`--max-errors\`)${left}${unread}.`;
    case 'interrupted':
      return `**Interrupted**${left}${unread}.`;
    case 'source': {
      const at = end.error instanceof SourceError ? ` past ${escapeMarkdown(formatLocation(end.error.location))}` : '';
      return `**Stopped**: the source could not be read${at}${left}${unread}.`;
    }
    default:
      if (!summary.complete) return `**Stopped** before the end of the source${left}${unread}.`;
      return summary.interrupted ? `**Interrupted**${left}.` : undefined;
  }
}

/** The step summary of a `publish` run. */
export function publishSummaryMarkdown(summary: RunSummary, errors: RowErrorCollector, options: PublishSummaryOptions): string {
  const done = options.dryRun ? summary.validated : summary.published;
  const wrong = summary.failed + summary.invalid;
  const ok = options.verdict.exitCode === 0;
  const verb = options.dryRun ? 'validated' : 'published';
  const status = ok
    ? `**✅ ${rowsText(done)} ${verb}**${summary.skipped > 0 ? `, ${count(summary.skipped)} skipped` : ''}`
    : `**❌ ${count(wrong)} of ${rowsText(summary.rows)} failed or invalid**${summary.not_attempted > 0 ? `, ${count(summary.not_attempted)} not attempted` : ''}`;
  const counts = countsTable(
    [
      [verb, done],
      ['failed', summary.failed],
      ['invalid', summary.invalid],
      ['skipped', summary.skipped],
      ['not attempted', summary.not_attempted],
    ],
    summary.rows,
  );
  const stop = stopText(options.end, summary);
  const timing = `${rowsText(summary.rows)} in ${duration(summary.duration_ms)} (${count(Math.round(summary.rows_per_second))} rows/s)${summary.requests > 0 ? ` · ${trafficText(summary)}` : ''}`;
  const lines = [heading(options.dryRun ? 'publish --dry-run' : 'publish', options.sources), '', status, '', verdictText(options.verdict), '', ...(stop === undefined ? [] : [stop, '']), ...counts, '', timing, ''];
  const groups = errorGroupsMarkdown(errors);
  if (groups.length > 0) lines.push(...groups, '');
  if (summary.report.length > 0) lines.push(`Reports: ${summary.report.map(escapeMarkdown).join(', ')}`, '');
  return `${lines.join('\n')}\n`;
}

/** The step summary of a `validate` run. */
export function validateSummaryMarkdown(counts: ValidateCounts, errors: RowErrorCollector, sources: readonly string[], verdict: Verdict): string {
  const status = verdict.exitCode === 0 ? `**✅ ${rowsText(counts.valid)} valid**` : `**❌ ${count(counts.invalid)} of ${rowsText(counts.rows)} invalid**`;
  const lines = [heading('validate', sources), '', status, '', verdictText(verdict), ''];
  if (!counts.complete) lines.push('**Stopped**: a source could not be read to its end; the counts are of the rows read.', '');
  lines.push(...countsTable([['valid', counts.valid], ['invalid', counts.invalid], ['skipped (not listings)', counts.skipped]], counts.rows), '');
  const groups = errorGroupsMarkdown(errors);
  if (groups.length > 0) lines.push(...groups, '');
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// The writer

/** Where a run writes: stderr for workflow commands, the step summary file. Injectable for tests. */
export interface GithubOutputs {
  /** A line of workflow commands (stderr). */
  command: (line: string) => void;
  /** `$GITHUB_STEP_SUMMARY`, when set. */
  summaryPath: string | undefined;
  cwd: string;
  /** `$GITHUB_WORKSPACE`, when set: annotations name the files inside it relative to it. */
  workspace?: string | undefined;
}

/** The GitHub Actions output of one run of `command`: collects row errors, then writes annotations and the summary. */
export class GithubRun {
  readonly errors = new RowErrorCollector();
  #openGroup: ((line: string) => void) | undefined;

  constructor(
    readonly command: 'publish' | 'validate',
    private readonly outputs: GithubOutputs,
  ) {}

  /** Collect a publish outcome (only failed and invalid rows are kept, up to the cap). */
  add(outcome: RowOutcome): void {
    this.errors.add(rowErrorOf(outcome));
  }

  /** Collect a validated row. */
  addPrepared(row: PreparedRow): void {
    this.errors.add(rowErrorOfPrepared(row));
  }

  /**
   * A writer of a long list on one stream (`write`), that opens `::group::title` on that stream (`writeCommand`: the
   * same stream, for the tool's own workflow commands) before its first line; {@link endGroup} closes it. A list that
   * prints nothing leaves no empty group.
   */
  grouped(title: string, write: (line: string) => void, writeCommand: (line: string) => void): (line: string) => void {
    let opened = false;
    return (line) => {
      if (!opened) {
        opened = true;
        this.#openGroup = writeCommand;
        writeCommand(workflowCommand('group', {}, title));
      }
      write(line);
    };
  }

  /** Close the group a {@link grouped} writer opened, if it did. */
  endGroup(): void {
    this.#openGroup?.('::endgroup::');
    this.#openGroup = undefined;
  }

  /** Annotations, then the step summary of a `publish` run. */
  finishPublish(summary: RunSummary, options: PublishSummaryOptions): void {
    this.#annotate(summary.report);
    this.#appendSummary(publishSummaryMarkdown(summary, this.errors, options));
  }

  /** Annotations, then the step summary of a `validate` run. */
  finishValidate(counts: ValidateCounts, sources: readonly string[], verdict: Verdict): void {
    this.#annotate([]);
    this.#appendSummary(validateSummaryMarkdown(counts, this.errors, sources, verdict));
  }

  #annotate(reports: readonly string[]): void {
    this.endGroup();
    for (const line of annotationLines(this.command, this.errors, this.outputs.cwd, reports, this.outputs.workspace)) this.outputs.command(line);
  }

  /** Append to the step summary; a summary that cannot be written is a warning, never the run's failure. */
  #appendSummary(markdown: string): void {
    const path = this.outputs.summaryPath;
    if (path === undefined || path === '') return;
    try {
      appendFileSync(path, redact(markdown));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      err(`warning: cannot append the job summary to $GITHUB_STEP_SUMMARY (${path}): ${code}`);
    }
  }
}

/** The GitHub Actions output of a run of `command`, or undefined outside GitHub Actions. */
export function githubActionsRun(command: 'publish' | 'validate', env: NodeJS.ProcessEnv = process.env): GithubRun | undefined {
  if (!inGithubActions(env)) return undefined;
  return new GithubRun(command, { command: (line) => workflowLine('stderr', line), summaryPath: env.GITHUB_STEP_SUMMARY, cwd: process.cwd(), workspace: env.GITHUB_WORKSPACE });
}
