import type { RowOutcome } from '../publish/outcome.js';
import type { RunSummary } from './summary.js';

/** How a streamed report lays out its text: what comes first, each row, what comes last. One per report file. */
export interface ReportFormat {
  header: string;
  /** `first` is true for the first row written (JSON needs no comma before it). */
  row(o: RowOutcome, first: boolean): string;
  footer(summary: RunSummary): string;
  /**
   * Text to write over part of the header once everything is known (JUnit's counts), at a byte offset from the
   * start of the file; the header must have kept exactly that much room.
   */
  patch?(summary: RunSummary): { at: number; text: string };
}
