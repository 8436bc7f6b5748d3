export { SummaryCounter, errorClass, NO_MARKETPLACE, type RunSummary, type MarketplaceCounts } from './summary.js';
export { openReport, reportFormatOf, reportRules, REPORT_FORMATS, type ReportFormatName, type ReportWriter } from './report-writer.js';
export { RetrySelection, readRetryRows, type RetryReport } from './retry-rows.js';
export { REPORT_COLUMNS, toReportRow, type ReportRow } from './row.js';
export { csvCell } from './csv.js';
export type { NextStep, RunMeta } from './run-meta.js';
