import type { RowOutcome } from '../publish/outcome.js';
import type { ReportFormat } from './format.js';
import { toReportRow } from './row.js';
import type { RunSummary } from './summary.js';

// The JSON text of a row, kept for the next report that writes the same outcome: each outcome is written to every
// report in turn, so a run with both a JSON and an NDJSON report builds and encodes the row once. Taken once, then
// made again: an outcome object changed and written again (a library caller's) is never shown as it was.
let keptOutcome: RowOutcome | undefined;
let keptText = '';

function rowJson(o: RowOutcome): string {
  if (o === keptOutcome) {
    keptOutcome = undefined;
    return keptText;
  }
  keptText = JSON.stringify(toReportRow(o));
  keptOutcome = o;
  return keptText;
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
