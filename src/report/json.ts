import type { RowOutcome } from '../publish/outcome.js';
import { printable } from '../printable.js';
import { jsonString } from '../json-string.js';
import type { ReportFormat } from './format.js';
import { lineOf, listingText, safeText } from './row.js';
import type { RunSummary } from './summary.js';

// The JSON text of a row, kept for the next report that writes the same outcome: each outcome is written to every
// report in turn, so a run with both a JSON and an NDJSON report builds the row once. Taken once, then
// made again: an outcome object changed and written again (a library caller's) is never shown as it was.
let keptOutcome: RowOutcome | undefined;
let keptText = '';

function rowJson(o: RowOutcome): string {
  if (o === keptOutcome) {
    keptOutcome = undefined;
    return keptText;
  }
  keptText = reportRowJson(o);
  keptOutcome = o;
  return keptText;
}

/** A JSON text, or null. */
function text(value: string | undefined): string {
  return value === undefined ? 'null' : jsonString(value);
}

/** A JSON number (`null` for none, and for NaN and infinities, as JSON.stringify writes them). */
function number(value: number | undefined): string {
  return value !== undefined && Number.isFinite(value) ? `${value}` : 'null';
}

// The values every row of a run repeats (its source, its marketplace), each encoded once while it lasts.
let source: string | undefined;
let sourceJson = '';
let marketplace: string | undefined;
let marketplaceJson = 'null';

/**
 * `JSON.stringify(toReportRow(o))`, the same text to the byte, written out key by key: no object per row, and the
 * source and marketplace encoded once while they last (a million-row report is mostly its rows).
 */
export function reportRowJson(o: RowOutcome): string {
  if (o.location.source !== source) {
    source = o.location.source;
    sourceJson = JSON.stringify(printable(source, { lines: false }));
  }
  if (o.marketplace !== marketplace) {
    marketplace = o.marketplace;
    marketplaceJson = marketplace === undefined ? 'null' : JSON.stringify(printable(marketplace, { lines: false }));
  }
  const issues = o.issues !== undefined && o.issues.length > 0 ? `,"issues":${JSON.stringify(o.issues)}` : '';
  return `{"source":${sourceJson},"line":${number(lineOf(o.location))},"sku":${text(o.sku === undefined ? undefined : printable(o.sku, { lines: false }))},"outcome":${jsonString(o.outcome)},"reason":${text(safeText(o.reason))},"http_status":${number(o.httpStatus)},"listing_status":${text(listingText(o.listingStatus))},"title":${text(listingText(o.title))},"attempts":${number(o.attempts)},"duration_ms":${number(o.durationMs)},"error":${text(safeText(o.error))},"marketplace":${marketplaceJson}${issues}}`;
}

/** `{"rows":[...],"summary":{...}}`: the rows first, since they are streamed and the summary is known at the end. */
export const jsonFormat: ReportFormat = {
  header: '{"rows":[\n',
  row: (o: RowOutcome, first: boolean) => `${first ? '' : ',\n'}${rowJson(o)}`,
  footer: (summary: RunSummary) => `\n],"summary":${JSON.stringify(summary)}}\n`,
};

/** One row per line, then a last line `{"summary":{...}}`. */
export const ndjsonFormat: ReportFormat = {
  header: '',
  row: (o: RowOutcome) => `${rowJson(o)}\n`,
  footer: (summary: RunSummary) => `${JSON.stringify({ summary })}\n`,
};
