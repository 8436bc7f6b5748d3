import type { RowOutcome } from '../publish/outcome.js';
import type { RunSummary } from './summary.js';
import type { RunMeta } from './run-meta.js';
import type { NameSetting } from '../errors.js';

/** How a streamed report lays out its text: what comes first, each row, what comes last. One per report file. */
export interface ReportFormat {
  header: string;
  /** `first` is true for the first row written (JSON needs no comma before it). */
  row(o: RowOutcome, first: boolean): string;
  /** `name` words the settings a line about rows not read points at (RunMeta.name). */
  footer(summary: RunSummary, name: NameSetting): string;
  /**
   * Text to write over part of the header once everything is known (JUnit's counts), at a byte offset from the
   * start of the file; the header must have kept exactly that much room.
   */
  patch?(summary: RunSummary): { at: number; text: string };
}

/**
 * A report file being written, one row at a time, in the order the rows are given (the engine gives them in input
 * order). Nothing of it is visible at `path` until `close`: it is written under a random temporary name beside it and
 * renamed (a pipe or a device at `path` is written in place, see AtomicFile).
 */
export interface ReportWriter {
  /** Where the report ends up. */
  readonly path: string;
  /**
   * Add one row. Returns a promise only when the file is behind (await it: backpressure); it never rejects, a write
   * error is thrown by the next `write` or by `close`.
   */
  write(o: RowOutcome): Promise<void> | void;
  /**
   * Write the summary, finish the file and rename it into place. `meta` (where the run came from and went, how it
   * ended) is shown by the HTML report; the other formats, whose shape is documented, take only its `name`.
   */
  close(summary: RunSummary, meta?: RunMeta): Promise<void>;
  /** Drop the file: nothing is left at `path` or beside it. */
  abort(): Promise<void>;
}
