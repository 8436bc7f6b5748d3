import { formatLocation, SourceError } from '../errors.js';
import type { PublishEnd } from '../publish/engine-types.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { RunSummary } from '../report/index.js';
import { marketplacesLine, notReadText, rowErrorLine } from '../report/summary-text.js';
import { err, out, paint } from './output.js';
import { count, duration } from './progress.js';
import { trafficText } from '../report/ci-summary.js';
import type { NextStep } from '../report/run-meta.js';
import { failedWithTheRun } from '../publish/outcome.js';

/** `3 failed` in its colour, dim when 0. */
export function part(value: number, label: string, colour: (text: string) => string): string {
  const text = `${count(value)} ${label}`;
  return value === 0 ? paint.dim(text) : colour(text);
}

/** The counts line: coloured counts, rows, time and rate. */
export function summaryLine(summary: RunSummary, dryRun: boolean): string {
  const done = dryRun ? part(summary.validated, 'validated', paint.green) : part(summary.published, 'published', paint.green);
  const parts = [
    done,
    part(summary.failed, 'failed', paint.red),
    part(summary.invalid, 'invalid', paint.yellow),
    part(summary.skipped, 'skipped', (text) => text),
    part(summary.not_attempted, 'not attempted', paint.yellow),
  ];
  // A run that did not read its source to the end is not a success, whatever the rows it read did.
  const ok = summary.failed + summary.invalid + summary.not_attempted === 0 && summary.complete !== false;
  const mark = ok ? paint.green('✔') : paint.red('✖');
  return `${mark} ${count(summary.rows)} ${summary.rows === 1 ? 'row' : 'rows'} in ${duration(summary.duration_ms)} (${count(Math.round(summary.rows_per_second))} rows/s): ${parts.join(', ')}`;
}

/** The final summary: first row errors and the counts on stderr; with `json`, the summary object on stdout. */
export function printSummary(summary: RunSummary, options: { json: boolean; dryRun: boolean; rowErrors: RowOutcome[]; end?: PublishEnd; nextStep?: NextStep | null }): void {
  const wrong = summary.failed + summary.invalid;
  // A run the service stopped says so once (printRunEnd), not once per row it refused.
  const rowErrors = options.rowErrors.filter((outcome) => !failedWithTheRun(outcome));
  for (const outcome of rowErrors) err(`${paint.red('error')} ${rowErrorLine(outcome, summary.by_marketplace !== undefined)}`);
  if (wrong > options.rowErrors.length && options.end?.kind !== 'systemic') err(paint.dim(`... and ${count(wrong - options.rowErrors.length)} more ${summary.report.length > 0 ? '(see the report)' : '(write them all with --report FILE.csv)'}`));
  err(summaryLine(summary, options.dryRun));
  const statuses = Object.entries(summary.errors_by_status);
  if (statuses.length > 0) err(`  errors by status: ${statuses.map(([status, n]) => `${status} x${count(n)}`).join(', ')}`);
  if (summary.by_marketplace !== undefined) err(`  ${marketplacesLine(summary.by_marketplace)}`);
  if (summary.requests > 0) err(`  ${trafficLine(summary)}`);
  if (summary.report.length > 0) err(`  report: ${summary.report.join(', ')}`);
  if (options.json) out(JSON.stringify(options.nextStep === undefined ? summary : { ...summary, next_step: options.nextStep }));
}

/** `2,043 requests, up to 96 at once; pushed back: 38 throttled (429), 2 overloaded (503)`. */
export function trafficLine(summary: RunSummary): string {
  return paint.dim(trafficText(summary));
}

/** Why a run stopped early (what to do next is the next step's, src/cli/next-step.ts). */
export function printRunEnd(end: PublishEnd, summary: RunSummary): void {
  const left = `${count(summary.not_attempted)} ${summary.not_attempted === 1 ? 'row' : 'rows'} not attempted${notReadText(summary)}`;
  switch (end.kind) {
    case 'systemic': {
      const error = end.error as { message?: string };
      const detail = error.message ?? String(end.error);
      err(`${paint.red('error')} the service could not be used: ${end.reason.includes(detail) ? end.reason : `${detail}: ${end.reason}`}`);
      if (end.hint) err(`${paint.dim('hint')}  ${end.hint}`);
      err(`  stopped after ${count(end.requests)} ${end.requests === 1 ? 'request' : 'requests'}; ${left}`);
      return;
    }
    case 'max-errors':
      err(`${paint.red('stopped')} after ${count(end.failed)} failed rows (--max-errors); ${left}`);
      return;
    case 'interrupted':
      // What to do next is the next step's line, the same as every output says.
      err(`${paint.yellow('interrupted')}: ${left}`);
      return;
    case 'source': {
      // The error itself (where, and why) is printed last, as the run's error.
      const at = end.error instanceof SourceError ? formatLocation(end.error.location) : undefined;
      if (summary.rows === 0) err(`${paint.red('stopped')}: no row could be read from the source${at === undefined ? '' : ` (${at})`}`);
      else err(`${paint.red('stopped')}: the source could not be read${at === undefined ? '' : ` past ${at}`}: ${count(summary.rows)} ${summary.rows === 1 ? 'row' : 'rows'} read, ${left}`);
      return;
    }
    default:
  }
}
