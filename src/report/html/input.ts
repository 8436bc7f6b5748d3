import type { RunMeta } from '../run-meta.js';
import type { RunSummary } from '../summary.js';
import type { RunDigest } from '../html-digest.js';

/** What the page is drawn from. */
export interface HtmlReportInput {
  summary: RunSummary;
  meta: RunMeta;
  digest: RunDigest;
  /** When the report was opened: the start shown when the run did not say when it started. */
  openedAt: Date;
}
