import type { RowOutcome } from '../publish/outcome.js';
import type { RunSummary } from './summary.js';

/** How a streamed report lays out its text: what comes first, each row, what comes last. */
export interface ReportFormat {
  header: string;
  /** `first` is true for the first row written (JSON needs no comma before it). */
  row(o: RowOutcome, first: boolean): string;
  footer(summary: RunSummary): string;
}
