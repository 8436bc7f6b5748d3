import { extname } from 'node:path';
import { UsageError } from '../errors.js';
import { AtomicFile } from '../fs/atomic-write.js';
import type { RowOutcome } from '../publish/outcome.js';
import { csvFormat } from './csv.js';
import type { ReportFormat } from './format.js';
import { jsonFormat, ndjsonFormat } from './json.js';
import { junitFormat } from './junit.js';
import type { RunSummary } from './summary.js';

/**
 * A report file being written, one row at a time, in the order the rows are given (the engine gives them in input
 * order). Nothing of it is visible at `path` until `close`: it is written to `<path>.tmp-<pid>` and renamed.
 */
export interface ReportWriter {
  /** Where the report ends up. */
  readonly path: string;
  /**
   * Add one row. Returns a promise only when the file is behind (await it: backpressure); it never rejects, a write
   * error is thrown by the next `write` or by `close`.
   */
  write(o: RowOutcome): Promise<void> | void;
  /** Write the summary, finish the file and rename it into place. */
  close(summary: RunSummary): Promise<void>;
  /** Drop the file: nothing is left at `path` or beside it. */
  abort(): Promise<void>;
}

/** The report formats, named by the file extension. */
export const REPORT_FORMATS = ['csv', 'json', 'ndjson', 'xml'] as const;
export type ReportFormatName = (typeof REPORT_FORMATS)[number];

/** The format of a report path from its extension (case-insensitive); a UsageError for any other. */
export function reportFormatOf(path: string): ReportFormatName {
  const ext = extname(path).slice(1).toLowerCase();
  const format = REPORT_FORMATS.find((name) => name === ext);
  if (format === undefined) {
    throw new UsageError(`--report ${path}: the format is chosen by the extension, and "${extname(path) || '(none)'}" is not one`, {
      hint: 'use .csv, .json, .ndjson or .xml (JUnit)',
    });
  }
  return format;
}

/** A report whose layout is a header, the rows, and a footer with the summary. */
export class StreamedReport implements ReportWriter {
  #first = true;

  constructor(
    private readonly file: AtomicFile,
    private readonly format: ReportFormat,
  ) {}

  static async start(file: AtomicFile, format: ReportFormat): Promise<StreamedReport> {
    if (format.header !== '') await file.write(format.header);
    return new StreamedReport(file, format);
  }

  get path(): string {
    return this.file.path;
  }

  write(o: RowOutcome): Promise<void> | undefined {
    const text = this.format.row(o, this.#first);
    this.#first = false;
    return this.file.write(text);
  }

  async close(summary: RunSummary): Promise<void> {
    try {
      await this.file.write(this.format.footer(summary));
      const patch = this.format.patch?.(summary);
      if (patch !== undefined) await this.file.writeAt(patch.at, patch.text);
    } catch (error) {
      await this.file.abort();
      throw error;
    }
    await this.file.commit();
  }

  abort(): Promise<void> {
    return this.file.abort();
  }
}

/** Open a report by the extension of its path: `.csv`, `.json`, `.ndjson` or `.xml` (JUnit). */
export async function openReport(path: string): Promise<ReportWriter> {
  const format = reportFormatOf(path);
  const file = await AtomicFile.open(path);
  try {
    switch (format) {
      case 'csv':
        return await StreamedReport.start(file, csvFormat());
      case 'json':
        return await StreamedReport.start(file, jsonFormat);
      case 'ndjson':
        return await StreamedReport.start(file, ndjsonFormat);
      case 'xml':
        return await StreamedReport.start(file, junitFormat());
    }
  } catch (error) {
    await file.abort();
    throw error;
  }
}
