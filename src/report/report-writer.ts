import { extname } from 'node:path';
import { UsageError, libraryName } from '../errors.js';
import { AtomicFile } from '../fs/atomic-write.js';
import type { OutputRules } from '../fs/output-target.js';
import type { RowOutcome } from '../publish/outcome.js';
import { csvFormat } from './csv.js';
import type { ReportFormat, ReportWriter } from './format.js';
import { jsonFormat, ndjsonFormat } from './json.js';
import { junitFormat } from './junit.js';
import type { RunMeta } from './run-meta.js';
import type { RunSummary } from './summary.js';

export type { ReportWriter } from './format.js';

/** The report formats, named by the file extension. */
export const REPORT_FORMATS = ['csv', 'json', 'ndjson', 'xml', 'html'] as const;
export type ReportFormatName = (typeof REPORT_FORMATS)[number];

/** The format of a report path from its extension (case-insensitive); a UsageError for any other. */
export function reportFormatOf(path: string): ReportFormatName {
  const ext = extname(path).slice(1).toLowerCase();
  const format = REPORT_FORMATS.find((name) => name === ext);
  if (format === undefined) {
    throw new UsageError((name) => `${name('report')} ${path}: the format is chosen by the extension, and "${extname(path) || '(none)'}" is not one`, {
      hint: 'use .csv, .json, .ndjson, .xml (JUnit) or .html (a page to read)',
      setting: { key: 'report', value: path },
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

  async close(summary: RunSummary, meta?: RunMeta): Promise<void> {
    try {
      await this.file.write(this.format.footer(summary, meta?.name ?? libraryName));
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

/**
 * How a report may be written: a JUnit report rewrites its first line at the end (its counts), so it needs a regular
 * file; the others are also written in place to a pipe or a device.
 */
export function reportRules(path: string): OutputRules {
  const inPlace = reportFormatOf(path) !== 'xml';
  return { pipe: inPlace, device: inPlace };
}

/** Open a report by the extension of its path: `.csv`, `.json`, `.ndjson`, `.xml` (JUnit) or `.html`. */
export async function openReport(path: string): Promise<ReportWriter> {
  const format = reportFormatOf(path);
  const file = await AtomicFile.open(path, reportRules(path));
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
      case 'html': {
        // Loaded only here: a run without an HTML report (and `--version`) never parses the page's code.
        const { HtmlReport } = await import('./html.js');
        return new HtmlReport(file);
      }
    }
  } catch (error) {
    await file.abort();
    throw error;
  }
}
