import { formatLocation, libraryName, SourceError, type NameSetting } from '../errors.js';
import type { PublishEnd } from '../publish/engine-types.js';
import { inertText } from './annotations.js';
import { inert, shortened } from '../printable.js';
import { redact } from '../secrets.js';
import { count, duration } from '../number-text.js';
import type { RowErrorCollector } from './row-errors.js';
import type { RunSummary } from './summary.js';
import type { NextStep } from './run-meta.js';

/** The markdown summary of a `publish` or `validate` run, for GitHub Actions' `$GITHUB_STEP_SUMMARY`. */

/** Kinds of error listed in the step summary, most frequent first. */
export const ERROR_GROUPS_SHOWN = 10;

/**
 * The punctuation with a meaning inside a line of GitHub markdown: code, emphasis, links and images, table cells,
 * strikethrough, math (`$`), emoji (`:name:`), issue references (`#12`), mentions, and the backslash itself. (Those
 * that only mean something at the start of a line, like `-` or `1.`, never come first here.)
 */
const MARKDOWN_PUNCTUATION = /[\\`*_{}[\]()#!|~$:@]/g;

/**
 * Outside text for markdown, HTML included: `&`, `<`, `>` as entities (no tag, no comment, no entity of its own),
 * markdown punctuation backslash-escaped (no emphasis, link, image or table cell break: GFM reads `\|` as a pipe
 * inside a cell), line breaks and control characters written out by {@link inertText}.
 */
export function escapeMarkdown(text: string): string {
  return inertText(text)
    .replace(MARKDOWN_PUNCTUATION, (char) => `\\${char}`)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

/** What `publish` adds to its summary. */
export interface PublishSummaryOptions {
  dryRun: boolean;
  sources: readonly string[];
  /** Why the run stopped, when it did not complete. */
  end?: PublishEnd;
  /** The run's verdict (src/run/verdict.ts): the exit code and why. */
  verdict: Verdict;
  /** The command that continues the work (src/run/next-step.ts). */
  nextStep?: NextStep | null | undefined;
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
  /** Rows read once the error limit had stopped the validation. */
  notValidated?: number;
  /** False when a source could not be read to its end. */
  complete: boolean;
}

function rowsText(n: number): string {
  return `${count(n)} ${n === 1 ? 'row' : 'rows'}`;
}

/** `Exit code 1: 3 rows failed; 97 published.` */
function verdictText(verdict: Verdict): string {
  return `Exit code ${verdict.exitCode}: ${escapeMarkdown(verdict.why)}.`;
}

function heading(command: string, sources: readonly string[]): string {
  const shownSources = sources.slice(0, 3).map(escapeMarkdown).join(', ');
  const more = sources.length > 3 ? ` and ${count(sources.length - 3)} more` : '';
  return `### listings ${command}${sources.length === 0 ? '' : ` · ${shownSources}${more}`}`;
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
  for (const group of top) {
    const varies = group.varies ? ' (values vary: the first is shown)' : '';
    lines.push(`| ${count(group.rows)} | ${escapeMarkdown(group.cause)} | ${escapeMarkdown(group.message)}${varies} | ${escapeMarkdown(formatLocation(group.first))} |`);
  }
  const otherRows = groups.slice(shownGroups).reduce((sum, group) => sum + group.rows, 0) + errors.ungrouped;
  if (otherRows > 0) {
    const kinds = groups.length - top.length;
    lines.push('', `… and ${rowsText(otherRows)} with ${kinds > 0 ? `${count(kinds)} other ${kinds === 1 ? 'kind' : 'kinds'} of error` : 'other errors'}${errors.ungrouped > 0 ? ' (and more kinds than were counted apart)' : ''}.`);
  }
  return lines;
}

/** `1,234 requests, up to 96 at once; pushed back: 38 throttled (429), 2 overloaded (503)`: here and on the terminal. */
export function trafficText(summary: RunSummary): string {
  const line = `${count(summary.requests)} ${summary.requests === 1 ? 'request' : 'requests'}, up to ${count(summary.peak_concurrency)} at once`;
  const busy = [
    summary.throttled > 0 ? `${count(summary.throttled)} throttled (429)` : '',
    summary.overloaded > 0 ? `${count(summary.overloaded)} overloaded (503)` : '',
    summary.timeouts > 0 ? `${count(summary.timeouts)} timed out` : '',
  ].filter((part) => part !== '');
  return busy.length === 0 ? line : `${line}; pushed back: ${busy.join(', ')}`;
}

/** The most statuses the not-ready line names. */
const NOT_READY_SHOWN = 5;

/**
 * `not ready: 3 of 20 published listings came back with a status other than "ready": "pending" x2, "draft" x1 (...)`:
 * the contract shows only `ready`, so a listing the service took in another state is told, not counted ready in
 * silence. The statuses were escaped and cut short when counted (RunSummary.listing_status).
 */
export function notReadyText(byStatus: Record<string, number>): string {
  const others = Object.entries(byStatus).filter(([status]) => status !== 'ready');
  const published = Object.values(byStatus).reduce((sum, n) => sum + n, 0);
  const notReady = others.reduce((sum, [, n]) => sum + n, 0);
  // One line of output: the most common statuses, each cut short (the summary keeps them whole).
  const shown = [...others].sort(([, a], [, b]) => b - a).slice(0, NOT_READY_SHOWN);
  const more = others.length - shown.length;
  const listed = `${shown.map(([status, n]) => `"${shortened(status, 40)}" x${count(n)}`).join(', ')}${more > 0 ? ` and ${count(more)} more` : ''}`;
  return `not ready: ${count(notReady)} of ${count(published)} published ${published === 1 ? 'listing' : 'listings'} came back with a status other than "ready": ${listed} (each row's is in the report's listing_status)`;
}

/**
 * A fenced block for a command to copy: the fence longer than any run of backquotes in it, so nothing in the command
 * ends it; the command has no line break (src/shell-words.ts quotes every word on one line).
 */
function codeBlock(text: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  // Inert (one line, no runner command) but never cut: a command cut short names no file.
  return [`${fence}sh`, inert(redact(text)), fence];
}

/** `**Next step**: send the 28 failed rows again:` and the command in a block to copy; nothing without one. */
export function nextStepMarkdown(step: NextStep | null | undefined): string[] {
  if (step === undefined || step === null) return [];
  return [`**Next step**: ${escapeMarkdown(step.why)}:`, '', ...codeBlock(step.command), ''];
}

/** Why the service could not be used: its error's message and the reason, once each. */
export function serviceCause(end: Extract<PublishEnd, { kind: 'systemic' }>): string {
  const detail = (end.error as { message?: unknown } | undefined)?.message;
  return typeof detail === 'string' && !end.reason.includes(detail) ? `${detail}: ${end.reason}` : end.reason;
}

/** The banner of a run the service stopped: why, and the fix, before anything else. */
function serviceBanner(end: Extract<PublishEnd, { kind: 'systemic' }>): string[] {
  const cause = serviceCause(end);
  const fix = end.hint === undefined ? [] : ['>', `> **Fix**: ${escapeMarkdown(end.hint)}`];
  return [`> **⛔ Stopped: the service could not be used**: ${escapeMarkdown(cause)}. No row after it was sent; the rows it refused are not at fault.`, ...fix, ''];
}

/** Why a run stopped early, for the summary; undefined when it completed. */
function stopText(end: PublishEnd | undefined, summary: RunSummary, name: NameSetting): string | undefined {
  const left = summary.not_attempted > 0 ? `; ${rowsText(summary.not_attempted)} not attempted` : '';
  const unread = summary.complete ? '' : summary.total === null ? '; the rest of the source not read' : `; about ${rowsText(summary.total - summary.rows)} not read`;
  switch (end?.kind) {
    case 'systemic':
      return `**Stopped**: the service could not be used: ${escapeMarkdown(serviceCause(end))}${left}${unread}.`;
    case 'max-errors':
      return `**Stopped** after ${rowsText(end.failed)} failed (\`${name('maxErrors')}\`)${left}${unread}.`;
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

/** The step summary of a `publish` run; `name` words the settings it names (the CLI passes its flags). */
export function publishSummaryMarkdown(summary: RunSummary, errors: RowErrorCollector, options: PublishSummaryOptions, name: NameSetting = libraryName): string {
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
  const stop = stopText(options.end, summary, name);
  const timing = `${rowsText(summary.rows)} in ${duration(summary.duration_ms)} (${count(Math.round(summary.rows_per_second))} rows/s)${summary.requests > 0 ? ` · ${trafficText(summary)}` : ''}`;
  const banner = options.end?.kind === 'systemic' ? serviceBanner(options.end) : [];
  const notReady = summary.listing_status === undefined ? [] : [`⚠️ ${escapeMarkdown(notReadyText(summary.listing_status))}`, ''];
  const lines = [heading(options.dryRun ? `publish ${name('dryRun')}` : 'publish', options.sources), '', ...banner, status, '', verdictText(options.verdict), '', ...nextStepMarkdown(options.nextStep), ...(stop === undefined || banner.length > 0 ? [] : [stop, '']), ...counts, '', ...notReady, timing, ''];
  const groups = errorGroupsMarkdown(errors);
  if (groups.length > 0) lines.push(...groups, '');
  if (summary.report.length > 0) lines.push(`Reports: ${summary.report.map(escapeMarkdown).join(', ')}`, '');
  return `${lines.join('\n')}\n`;
}

/** The step summary of a `validate` run. */
export function validateSummaryMarkdown(counts: ValidateCounts, errors: RowErrorCollector, sources: readonly string[], verdict: Verdict, nextStep?: NextStep | null): string {
  const status = verdict.exitCode === 0 ? `**✅ ${rowsText(counts.valid)} valid**` : `**❌ ${count(counts.invalid)} of ${rowsText(counts.rows)} invalid**`;
  const lines = [heading('validate', sources), '', status, '', verdictText(verdict), '', ...nextStepMarkdown(nextStep)];
  if (!counts.complete) lines.push('**Stopped**: a source could not be read to its end; the counts are of the rows read.', '');
  const left: [string, number][] = (counts.notValidated ?? 0) > 0 ? [['not validated', counts.notValidated ?? 0]] : [];
  lines.push(...countsTable([['valid', counts.valid], ['invalid', counts.invalid], ['skipped (not listings)', counts.skipped], ...left], counts.rows), '');
  const groups = errorGroupsMarkdown(errors);
  if (groups.length > 0) lines.push(...groups, '');
  return `${lines.join('\n')}\n`;
}
