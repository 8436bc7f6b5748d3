import { performance } from 'node:perf_hooks';
import type { AtomicFile } from '../fs/atomic-write.js';
import type { RowOutcome } from '../publish/outcome.js';
import { RunDigest } from './html-digest.js';
import { renderHtmlReport } from './html/render.js';
import type { ReportWriter } from './format.js';
import type { RunMeta } from './run-meta.js';
import type { RunSummary } from './summary.js';

/**
 * The HTML report: one self-contained page a person reads (counts, the run's metadata, charts of outcomes,
 * throughput and time per row, the errors grouped and the first rows that did not publish). Its top needs the
 * final counts, so rows are not streamed to the file: they are folded into a {@link RunDigest} of bounded size and
 * the page is written at `close`. A million-row run gives a page of the same size as a ten-thousand-row one; the
 * CSV and NDJSON reports keep every row.
 *
 * Loaded only when an `.html` report is asked for.
 */
export class HtmlReport implements ReportWriter {
  readonly #file: AtomicFile;
  readonly #digest = new RunDigest();
  readonly #openedAt = new Date();
  readonly #opened = performance.now();

  constructor(file: AtomicFile) {
    this.#file = file;
  }

  get path(): string {
    return this.#file.path;
  }

  write(o: RowOutcome): undefined {
    // When the answer came, not when the row reached the report: rows come in input order, in bursts after a retry.
    this.#digest.add(o, o.settledAtMs ?? performance.now() - this.#opened);
    return undefined;
  }

  async close(summary: RunSummary, meta: RunMeta = {}): Promise<void> {
    try {
      await this.#file.write(renderHtmlReport({ summary, meta, digest: this.#digest, openedAt: this.#openedAt }));
    } catch (error) {
      await this.#file.abort();
      throw error;
    }
    await this.#file.commit();
  }

  abort(): Promise<void> {
    return this.#file.abort();
  }
}
