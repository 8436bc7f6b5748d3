import type { Location } from '../errors.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { PreparedRow } from '../prepare/types.js';
import { causeOf, ErrorGroups, groupKey, type ErrorGroup } from './error-groups.js';

/** The failed and invalid rows of a run as its CI output needs them: the first ones to annotate, all of them grouped. */

/**
 * Rows annotated per run; the rest are counted in one warning. (The runner turns the first 10 errors of a step into
 * annotations on the run page, ExecutionContext's `_maxIssueCount`; every one is in the log.)
 */
export const ANNOTATIONS_MAX = 50;
/** Kinds of error counted apart; beyond it, rows are counted as "other errors", so memory stays flat. */
export const ERROR_GROUPS_KEPT = 1_000;

/** A failed or invalid row, as annotations and the summary need it. */
export interface RowError {
  location: Location;
  sku?: string;
  /** The marketplace the row went (or would have gone) to, as the catalog or the settings gave it. */
  marketplace?: string;
  outcome: 'failed' | 'invalid';
  /** How it is counted in `errors_by_status`: `400`, `network`, `timeout`, `invalid`. */
  cause: string;
  /** The last error (failed) or the field issues (invalid), on one line. */
  message: string;
}

/** The row error of a publish outcome; undefined for rows that did not fail. */
export function rowErrorOf(outcome: RowOutcome): RowError | undefined {
  if (outcome.outcome !== 'failed' && outcome.outcome !== 'invalid') return undefined;
  return {
    location: outcome.location,
    ...(outcome.sku === undefined ? {} : { sku: outcome.sku }),
    ...(outcome.marketplace === undefined ? {} : { marketplace: outcome.marketplace }),
    outcome: outcome.outcome,
    cause: causeOf(outcome),
    message: outcome.error ?? outcome.reason ?? outcome.outcome,
  };
}

/** The row error of a validated row; undefined for rows that are valid or skipped. */
export function rowErrorOfPrepared(row: PreparedRow): RowError | undefined {
  if (row.kind !== 'invalid') return undefined;
  const message = row.issues.map((issue) => (issue.path === '(record)' ? issue.message : `${issue.path}: ${issue.message}`)).join('; ');
  return { location: row.location, ...(row.sku === undefined ? {} : { sku: row.sku }), ...(row.marketplace === undefined ? {} : { marketplace: row.marketplace }), outcome: 'invalid', cause: 'invalid', message };
}

/**
 * Collects the row errors of a run as they stream past, holding at most `cap` rows (the ones to annotate) and
 * `maxGroups` kinds of error (by cause and message, values aside: the HTML report's grouping, {@link groupKey}): never the whole catalog.
 */
export class RowErrorCollector {
  /** The first `cap` row errors, in input order. */
  readonly first: RowError[] = [];
  /** Every row error seen. */
  total = 0;
  readonly #groups: ErrorGroups<Location>;

  constructor(
    readonly cap: number = ANNOTATIONS_MAX,
    readonly maxGroups: number = ERROR_GROUPS_KEPT,
  ) {
    this.#groups = new ErrorGroups(maxGroups, groupKey);
  }

  add(error: RowError | undefined): void {
    if (error === undefined) return;
    this.total++;
    if (this.first.length < this.cap) this.first.push(error);
    this.#groups.add(error.cause, error.message, error.location);
  }

  /** Row errors not annotated. */
  get rest(): number {
    return this.total - this.first.length;
  }

  /** Rows whose kind of error came after `maxGroups` others: counted, not grouped. */
  get ungrouped(): number {
    return this.#groups.ungrouped;
  }

  /** The kinds of error, most rows first (ties in order of first appearance). */
  groups(): ErrorGroup<Location>[] {
    return this.#groups.groups();
  }
}
