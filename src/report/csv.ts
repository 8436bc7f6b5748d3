import type { RowOutcome } from '../publish/outcome.js';
import { REPORT_COLUMNS, lineOf, listingText, safeText } from './row.js';
import type { ReportFormat } from './format.js';
import type { RunSummary } from './summary.js';
import { printable } from '../printable.js';
import { unreadText } from '../catalog/unread.js';
import type { NameSetting } from '../errors.js';

/**
 * Why the last line of the report of a run that did not read its whole source is there, with what a source that
 * stopped left unread and why when the summary says; `name` words the setting that sends those rows.
 */
export function notReadReason(summary: RunSummary, name: NameSetting): string {
  const reason = `the run stopped before the end of the source: the rows after the line above were not read (${name('retryFailed')} of this report sends them)`;
  return summary.unread === undefined ? reason : `${reason}; ${unreadText(summary.unread)}`;
}

/**
 * One CSV cell, RFC 4180: quoted when it holds a quote, comma, CR or LF, quotes doubled. A cell that begins with
 * `=`, `+`, `-`, `@`, tab, CR or LF is first prefixed with a single quote, so a spreadsheet shows it as text instead
 * of running it as a formula (CSV injection). Character checks, no regular expression: this runs for every cell of
 * a million-row report.
 */
export function csvCell(value: string): string {
  if (value === '') return value;
  const first = value.charCodeAt(0);
  const text = first === 0x3d || first === 0x2b || first === 0x2d || first === 0x40 || first === 0x09 || first === 0x0d || first === 0x0a ? `'${value}` : value;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x2c || c === 0x0a || c === 0x0d) return `"${text.replaceAll('"', '""')}"`;
  }
  return text;
}

function optional(value: string | undefined): string {
  return value === undefined ? '' : csvCell(value);
}

function number(value: number | undefined): string {
  return value === undefined ? '' : String(value);
}

/**
 * The CSV report: a header line, then one line per row in the order written; lines end with LF. A report of a run
 * that stopped before the end of its source ends with one more line, outcome `not_read`, saying so: a CSV has no
 * summary to carry `complete: false`.
 */
export function csvFormat(): ReportFormat {
  // Every row of a run names the same source: quote it once.
  let source = '';
  let sourceCell = '';
  const sourceOf = (o: RowOutcome): string => {
    if (o.location.source !== source) {
      source = o.location.source;
      sourceCell = csvCell(printable(source, { lines: false }));
    }
    return sourceCell;
  };
  // A run has a few marketplaces: each one's cell is made once.
  let marketplace: string | undefined;
  let marketplaceCell = '';
  const marketplaceOf = (o: RowOutcome): string => {
    if (o.marketplace === undefined) return '';
    if (o.marketplace !== marketplace) {
      marketplace = o.marketplace;
      marketplaceCell = csvCell(printable(marketplace, { lines: false }));
    }
    return marketplaceCell;
  };
  return {
    header: `${REPORT_COLUMNS.join(',')}\n`,
    row: (o: RowOutcome): string =>
      `${sourceOf(o)},${number(lineOf(o.location))},${optional(o.sku === undefined ? undefined : printable(o.sku, { lines: false }))},${o.outcome},${optional(safeText(o.reason))},${number(o.httpStatus)},${optional(listingText(o.listingStatus))},${optional(listingText(o.title))},${o.attempts},${o.durationMs},${optional(safeText(o.error))},${marketplaceOf(o)}\n`,
    footer: (summary: RunSummary, name: NameSetting) => (summary.complete ? '' : `${sourceCell},,,not_read,${csvCell(notReadReason(summary, name))},,,,0,0,,\n`),
  };
}
