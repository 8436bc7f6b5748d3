import type { PublishEnd } from '../publish/engine-types.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { RunSummary } from '../report/index.js';
import { marketplacesLine, rowErrorLine, runEndText } from '../report/summary-text.js';
import { cliName } from './setting-flags.js';
import { err, out, paint } from './output.js';
import { count, duration } from './progress.js';
import { notReadyText, trafficText } from '../report/ci-summary.js';
import type { NextStep } from '../report/run-meta.js';
import { failedWithTheRun } from '../publish/outcome.js';
import { printable } from '../printable.js';

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
  if (summary.listing_status !== undefined) err(`  ${paint.yellow(notReadyText(summary.listing_status))}`);
  if (summary.requests > 0) err(`  ${trafficLine(summary)}`);
  if (summary.report.length > 0) err(`  report: ${summary.report.map((path) => printable(path, { lines: false })).join(', ')}`);
  if (options.json) out(JSON.stringify(options.nextStep === undefined ? summary : { ...summary, next_step: options.nextStep }));
}

/** `2,043 requests, up to 96 at once; pushed back: 38 throttled (429), 2 overloaded (503)`. */
export function trafficLine(summary: RunSummary): string {
  return paint.dim(trafficText(summary));
}

/** Why a run stopped early (what to do next is the next step's, src/cli/next-step.ts). */
export function printRunEnd(end: PublishEnd, summary: RunSummary): void {
  const text = runEndText(end, summary, cliName);
  if (text === undefined) return;
  err(`${text.head === 'interrupted' ? paint.yellow(text.head) : paint.red(text.head)}${text.after}`);
  if (text.hint !== undefined) err(`${paint.dim('hint')}  ${text.hint}`);
  if (text.under !== undefined) err(text.under);
}
