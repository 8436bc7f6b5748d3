import type { RowOutcome } from '../publish/outcome.js';
import type { ReportFormat } from './format.js';
import { toReportRow } from './row.js';
import type { RunSummary } from './summary.js';

/** `{"rows":[...],"summary":{...}}`: the rows first, since they are streamed and the summary is known at the end. */
export const jsonFormat: ReportFormat = {
  header: '{"rows":[\n',
  row: (o: RowOutcome, first: boolean) => `${first ? '' : ',\n'}${JSON.stringify(toReportRow(o))}`,
  footer: (summary: RunSummary) => `\n],"summary":${JSON.stringify(summary)}}\n`,
};

/** One row per line, then a last line `{"summary":{...}}`. */
export const ndjsonFormat: ReportFormat = {
  header: '',
  row: (o: RowOutcome) => `${JSON.stringify(toReportRow(o))}\n`,
  footer: (summary: RunSummary) => `${JSON.stringify({ summary })}\n`,
};
