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
 * The not_read lines of a report (source cell, reason): one for the source that stopped the run, then one for each
 * source after it, never opened; `lastSource` (the source of the last row) when the run names none.
 */
export function notReadLines(summary: RunSummary, name: NameSetting, lastSource: string): [string, string][] {
  const [stopped, ...notOpened] = summary.unread?.sources_not_read ?? [];
  if (stopped === undefined) return [[lastSource, notReadReason(summary, name)]];
  const retry = `${name('retryFailed')} of this report sends them`;
  const first = `the run stopped in this source: its rows after the last line listed for it were not read (${retry}); ${unreadText(summary.unread!)}`;
  return [[stopped, first], ...notOpened.map((source): [string, string] => [source, `the run stopped before this source was opened: none of its rows was read (${retry})`])];
}

/**
 * Whether a spreadsheet could run `value` as a formula: its first character past white space and quotes (a
 * spreadsheet may trim either) is `=`, `+`, `-`, `@` or their full-width forms, or the white space holds a tab, CR or
 * LF. Skipping a leading `'` too makes `'x` judged as `x` is: so the single quote added to the one can be told from
 * a value that began with one. Character checks, no regular expression: this runs for every cell of a million-row
 * report.
 */
export function formulaLike(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x09 || c === 0x0d || c === 0x0a) return true;
    if (c === 0x20 || c === 0x22 || c === 0x27 || c === 0xa0 || c === 0x3000 || c === 0xfeff) continue;
    return c === 0x3d || c === 0x2b || c === 0x2d || c === 0x40 || c === 0xff1d || c === 0xff0b || c === 0xff0d || c === 0xff20;
  }
  return false;
}

/**
 * One CSV cell, RFC 4180: quoted when it holds a quote, comma, CR or LF, quotes doubled. A cell a spreadsheet could
 * run as a formula (`formulaLike`) is first prefixed with a single quote, so it is shown as text (CSV injection).
 */
export function csvCell(value: string): string {
  if (value === '') return value;
  const text = formulaLike(value) ? `'${value}` : value;
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
    footer: (summary: RunSummary, name: NameSetting) =>
      summary.complete
        ? ''
        : notReadLines(summary, name, source)
            .map(([named, reason]) => `${csvCell(printable(named, { lines: false }))},,,not_read,${csvCell(reason)},,,,0,0,,\n`)
            .join(''),
  };
}
