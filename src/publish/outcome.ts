import type { ListingsError, Location } from '../errors.js';
import type { FieldIssue } from '../contract/issues.js';

/** What happened to one input row. `validated` is the outcome of a dry run; `enqueued`, of `listings enqueue` (sent to Kafka for workers to publish). */
export const OUTCOMES = ['published', 'failed', 'invalid', 'skipped', 'not_attempted', 'validated', 'enqueued'] as const;
export type OutcomeKind = (typeof OUTCOMES)[number];

/** The result of one input row; exactly one per row read. */
export interface RowOutcome {
  /** 0-based position of the row in the input. */
  index: number;
  location: Location;
  sku?: string;
  /**
   * The marketplace the row went (or would have gone) to: with the SKU, the listing's identity. Absent when the row
   * has none (an unreadable record, a row that is no listing, a marketplace missing altogether).
   */
  marketplace?: string;
  outcome: OutcomeKind;
  /** Why a row was skipped, failed or not attempted, in a few words. */
  reason?: string;
  httpStatus?: number;
  listingStatus?: string;
  title?: string;
  attempts: number;
  durationMs: number;
  /**
   * When the row's outcome became known (the answer came, or the row was skipped, refused or left unsent), in whole
   * ms since the run began reading, on the run's monotonic clock. Rows are handed on in input order, so this is what
   * tells the pace of the service from the bursts of that release: progress and throughput count by it. Set on
   * every outcome of a publishing run.
   */
  settledAtMs?: number;
  /** The last error message (failed) or the joined field issues (invalid). */
  error?: string;
  /** The kind of a failed row's last error (`api`, `network`, `timeout`), when it was one of the typed errors. */
  errorKind?: ListingsError['kind'];
  issues?: FieldIssue[];
}

/**
 * The reasons of a row that failed because the service could not be used at all, not for anything in the row: the
 * key or the endpoint refused (task.ts `describeRejected`), or the service found unusable (sending.ts, engine.ts).
 * Such a run is told once, at the run level, not as one error per row.
 */
export const RUN_LEVEL_REASONS: ReadonlySet<string> = new Set(['API key rejected', 'refused', 'redirect not followed', 'endpoint not found', 'service unusable']);

/** A row that failed only because the service stopped the run (see {@link RUN_LEVEL_REASONS}). */
export function failedWithTheRun(outcome: RowOutcome): boolean {
  return outcome.outcome === 'failed' && outcome.reason !== undefined && RUN_LEVEL_REASONS.has(outcome.reason);
}
