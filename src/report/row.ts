import type { FieldIssue } from '../contract/issues.js';
import type { Location } from '../errors.js';
import type { RowOutcome } from '../publish/outcome.js';
import { redact } from '../secrets.js';
import { printable } from '../printable.js';

/** The columns of the CSV report, and the keys of a row in the JSON and NDJSON reports, in this order. */
export const REPORT_COLUMNS = [
  'source',
  'line',
  'sku',
  'outcome',
  'reason',
  'http_status',
  'listing_status',
  'title',
  'attempts',
  'duration_ms',
  'error',
  // Last, so that readers of the columns before it by position are not moved.
  'marketplace',
] as const;

/** One row of a JSON or NDJSON report; absent values are null, so every row has every key. */
export interface ReportRow {
  source: string;
  /** The line of a text source, or the record number of a JSON one. */
  line: number | null;
  sku: string | null;
  outcome: RowOutcome['outcome'];
  reason: string | null;
  http_status: number | null;
  listing_status: string | null;
  title: string | null;
  attempts: number;
  duration_ms: number;
  error: string | null;
  /** The marketplace the row went to: with the SKU, the listing's identity. */
  marketplace: string | null;
  /** The field issues of an invalid row. */
  issues?: FieldIssue[];
}

/** The line (text formats) or record number (JSON) of a location. */
export function lineOf(location: Location): number | undefined {
  return location.line ?? location.record;
}

/**
 * Free text that may echo what the service, a library or the catalog said. Passed through `redact`, so a key that
 * leaked into an error message never reaches a report file, and `printable`, so no control character does (a report
 * shown with `cat` cannot drive the terminal).
 */
export function safeText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : printable(redact(text), { lines: false });
}

/** The most of a listing's status or title (the service's text) kept in a report: a real one is a few dozen characters. */
const MAX_LISTING_TEXT = 300;

/** A listing field the service sent back: as `safeText`, and cut short, so a hostile answer cannot bloat a report. */
export function listingText(text: string | undefined): string | undefined {
  const safe = safeText(text);
  return safe === undefined || safe.length <= MAX_LISTING_TEXT ? safe : `${safe.slice(0, MAX_LISTING_TEXT - 1)}…`;
}

export function toReportRow(o: RowOutcome): ReportRow {
  const row: ReportRow = {
    source: printable(o.location.source, { lines: false }),
    line: lineOf(o.location) ?? null,
    sku: o.sku === undefined ? null : printable(o.sku, { lines: false }),
    outcome: o.outcome,
    reason: safeText(o.reason) ?? null,
    http_status: o.httpStatus ?? null,
    listing_status: listingText(o.listingStatus) ?? null,
    title: listingText(o.title) ?? null,
    attempts: o.attempts,
    duration_ms: o.durationMs,
    error: safeText(o.error) ?? null,
    marketplace: o.marketplace === undefined ? null : printable(o.marketplace, { lines: false }),
  };
  if (o.issues !== undefined && o.issues.length > 0) row.issues = o.issues;
  return row;
}
