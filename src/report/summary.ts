import type { OutcomeKind, RowOutcome } from '../publish/outcome.js';
import type { Unread } from '../catalog/unread.js';
import { listingText } from './row.js';

/** What a run did, as `--json` prints it and the reports end with. The counts add up to `rows`. */
export interface RunSummary {
  /** Input rows read. */
  rows: number;
  published: number;
  failed: number;
  invalid: number;
  /** Resumed (`already published`), unchanged, other shard, not in `--retry-failed`. */
  skipped: number;
  /** Never sent because the run stopped (interrupt, `--max-errors`, systemic failure). */
  not_attempted: number;
  /** Checked but not sent (`--dry-run`). */
  validated: number;
  /** Sent to Kafka for workers to publish (`listings enqueue`). */
  enqueued: number;
  duration_ms: number;
  /**
   * Rows handled per second of the run: published + failed + invalid + validated + enqueued. Skipped and not attempted rows
   * are not work, so a resumed or sharded run is not flattered by them.
   */
  rows_per_second: number;
  /** Failed and invalid rows by cause: the HTTP status (`"503"`), `network`, `timeout` or `invalid`. */
  errors_by_status: Record<string, number>;
  /** Requests sent, retries included. */
  requests: number;
  /** Requests the service answered 429: it asked for a slower pace (busy, not failed). */
  throttled: number;
  /** Requests answered 503 (or 502/504 from a proxy): the service was at capacity (busy, not failed). */
  overloaded: number;
  /** Requests with no answer in time. */
  timeouts: number;
  /** The most requests the run had in flight at once. */
  peak_concurrency: number;
  /** The report files written. */
  report: string[];
  /**
   * True when every row of the source is in these counts. False when the run stopped before reading to the end
   * (interrupted, or the source could not be read further): the report then lists only the rows read, and
   * `--retry-failed` of it also sends the rows it never reached.
   */
  complete: boolean;
  /** The run was stopped by a signal (Ctrl-C, SIGTERM). */
  interrupted: boolean;
  /**
   * The rows of the source: `rows` when complete; else the rows read plus a count of the lines left where that is
   * cheap (a local CSV/NDJSON file), or null.
   */
  total: number | null;
  /**
   * For a source that could not be read to its end: why, and how much of it was not read (see Unread). Absent
   * otherwise.
   */
  unread?: Unread;
  /**
   * The counts of each marketplace, when the rows went to more than one (a fan-out, or a marketplace column with
   * several values); rows with no marketplace at all, or one refused as invalid, are under `(none)`. Absent otherwise.
   */
  by_marketplace?: Record<string, MarketplaceCounts>;
  /**
   * The published rows by the listing status the service answered, when any was not `ready` (the only state the
   * contract shows): a service may accept a listing as `pending` or `draft`, and a run should not call that ready in
   * silence. Absent when every published listing came back `ready`. The statuses are the service's text, escaped and
   * cut short; past {@link MAX_STATUSES} different ones, the rest are counted under `(other)`.
   */
  listing_status?: Record<string, number>;
}

/** The most different listing statuses counted by name: a hostile service cannot grow the summary without end. */
export const MAX_STATUSES = 20;
/** The key of `listing_status` for the statuses past {@link MAX_STATUSES}. */
export const OTHER_STATUSES = '(other)';
/** The one listing status the contract shows. */
const READY = 'ready';

/** One marketplace's share of a run's counts. */
export type MarketplaceCounts = { rows: number } & Record<OutcomeKind, number>;

/** The key of `by_marketplace` for rows with no marketplace. */
export const NO_MARKETPLACE = '(none)';

function zeroCounts(): Record<OutcomeKind, number> {
  return { published: 0, failed: 0, invalid: 0, skipped: 0, not_attempted: 0, validated: 0, enqueued: 0 };
}

/** A row refused for its marketplace value (`ebay` to the flat shape): the value is no marketplace to count under. */
function marketplaceRefused(o: RowOutcome): boolean {
  return o.outcome === 'invalid' && o.issues !== undefined && o.issues.some((issue) => issue.path === 'marketplace');
}

/** How far a run read its source, for the summary. */
export interface Reading {
  complete: boolean;
  interrupted: boolean;
  /** Rows left unread, when they could be counted. */
  notRead?: number | undefined;
  /** What a source that stopped left unread. */
  unread?: Unread | undefined;
}

const READ_TO_END: Reading = { complete: true, interrupted: false };

/** How a failed or invalid row is counted in `errors_by_status`. */
export function errorClass(o: RowOutcome): string | undefined {
  if (o.outcome === 'invalid') return 'invalid';
  if (o.outcome !== 'failed') return undefined;
  if (o.httpStatus !== undefined) return String(o.httpStatus);
  return o.errorKind === 'timeout' ? 'timeout' : 'network';
}

/** What the run's requests met, from the engine's counts. */
export interface TrafficCounts {
  requests: number;
  throttled: number;
  overloaded: number;
  timeouts: number;
  peakConcurrency: number;
}

const NO_TRAFFIC: TrafficCounts = { requests: 0, throttled: 0, overloaded: 0, timeouts: 0, peakConcurrency: 0 };

/** Counts outcomes as they stream past; never holds a row. */
export class SummaryCounter {
  readonly #counts: Record<OutcomeKind, number> = zeroCounts();
  readonly #byStatus = new Map<string, number>();
  readonly #byMarketplace = new Map<string, Record<OutcomeKind, number>>();
  /** The counts of the last row's marketplace: rows come in runs of one marketplace, so a lookup is rare. */
  #marketplace: string | undefined;
  #marketplaceCounts: Record<OutcomeKind, number> | undefined;
  /** Published rows by a listing status other than `ready`; created at the first one. */
  #notReady: Map<string, number> | undefined;

  add(o: RowOutcome): void {
    this.#counts[o.outcome]++;
    if (o.outcome === 'published' && o.listingStatus !== undefined && o.listingStatus !== READY) this.#countNotReady(o.listingStatus);
    const marketplace = o.marketplace === undefined || marketplaceRefused(o) ? '' : o.marketplace;
    if (marketplace !== this.#marketplace || this.#marketplaceCounts === undefined) {
      this.#marketplace = marketplace;
      let counts = this.#byMarketplace.get(marketplace);
      if (counts === undefined) this.#byMarketplace.set(marketplace, (counts = zeroCounts()));
      this.#marketplaceCounts = counts;
    }
    this.#marketplaceCounts[o.outcome]++;
    const key = errorClass(o);
    if (key !== undefined) this.#byStatus.set(key, (this.#byStatus.get(key) ?? 0) + 1);
  }

  #countNotReady(status: string): void {
    this.#notReady ??= new Map();
    let key = listingText(status) ?? '';
    if (!this.#notReady.has(key) && this.#notReady.size >= MAX_STATUSES) key = OTHER_STATUSES;
    this.#notReady.set(key, (this.#notReady.get(key) ?? 0) + 1);
  }

  /** `{listing_status}` when a published listing's status was not `ready`: every status, `ready` among them. */
  #listingStatuses(published: number): { listing_status?: Record<string, number> } {
    if (this.#notReady === undefined) return {};
    let notReady = 0;
    for (const n of this.#notReady.values()) notReady += n;
    // No prototype: a status the service names `__proto__` is a key like any other.
    const byStatus = Object.create(null) as Record<string, number>;
    if (published > notReady) byStatus[READY] = published - notReady;
    for (const [status, n] of [...this.#notReady].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) byStatus[status] = (byStatus[status] ?? 0) + n;
    return { listing_status: byStatus };
  }

  /** The rows counted so far. */
  get rows(): number {
    const c = this.#counts;
    return c.published + c.failed + c.invalid + c.skipped + c.not_attempted + c.validated + c.enqueued;
  }

  summary(durationMs: number, reportPaths: string[], traffic: TrafficCounts = NO_TRAFFIC, reading: Reading = READ_TO_END): RunSummary {
    const c = this.#counts;
    const work = c.published + c.failed + c.invalid + c.validated + c.enqueued;
    const byStatus: Record<string, number> = {};
    for (const key of [...this.#byStatus.keys()].sort(compareKeys)) byStatus[key] = this.#byStatus.get(key) ?? 0;
    return {
      rows: this.rows,
      published: c.published,
      failed: c.failed,
      invalid: c.invalid,
      skipped: c.skipped,
      not_attempted: c.not_attempted,
      validated: c.validated,
      enqueued: c.enqueued,
      duration_ms: durationMs,
      rows_per_second: durationMs > 0 ? Math.round((work * 10_000) / durationMs) / 10 : 0,
      errors_by_status: byStatus,
      requests: traffic.requests,
      throttled: traffic.throttled,
      overloaded: traffic.overloaded,
      timeouts: traffic.timeouts,
      peak_concurrency: traffic.peakConcurrency,
      report: [...reportPaths],
      complete: reading.complete,
      interrupted: reading.interrupted,
      total: reading.complete ? this.rows : reading.notRead === undefined ? null : this.rows + reading.notRead,
      ...(reading.unread === undefined ? {} : { unread: reading.unread }),
      ...this.#marketplaces(),
      ...this.#listingStatuses(c.published),
    };
  }

  /** `{by_marketplace}` when more than one marketplace was seen, by name. */
  #marketplaces(): { by_marketplace?: Record<string, MarketplaceCounts> } {
    let named = 0;
    for (const name of this.#byMarketplace.keys()) if (name !== '') named++;
    if (named < 2) return {};
    const byMarketplace: Record<string, MarketplaceCounts> = {};
    for (const name of [...this.#byMarketplace.keys()].sort()) {
      const c = this.#byMarketplace.get(name)!;
      byMarketplace[name === '' ? NO_MARKETPLACE : name] = { rows: c.published + c.failed + c.invalid + c.skipped + c.not_attempted + c.validated + c.enqueued, ...c };
    }
    return { by_marketplace: byMarketplace };
  }
}

/** Statuses in numeric order, then the words. */
function compareKeys(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isNaN(na) !== Number.isNaN(nb)) return Number.isNaN(na) ? 1 : -1;
  return Number.isNaN(na) ? a.localeCompare(b) : na - nb;
}
