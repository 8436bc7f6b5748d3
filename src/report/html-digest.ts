import { OUTCOMES, type OutcomeKind, type RowOutcome } from '../publish/outcome.js';
import { lineOf, safeText } from './row.js';
import { ErrorGroups, groupKey } from './error-groups.js';
import { errorClass } from './summary.js';
import { printable, shortened } from '../printable.js';

/** The most of a SKU shown (a real one is a few dozen characters). */
const SKU_CHARS = 100;

/** How much of a run the HTML report keeps: whatever the run's size, the digest never holds more than this. */
export interface DigestLimits {
  /** Rows kept one by one in the failures table; the rest are only counted (the CSV/NDJSON report has them all). */
  detailRows: number;
  /** Distinct errors kept in the grouped table; rows of any further error are counted per outcome. */
  groups: number;
  /** Time buckets of the throughput chart: past this, neighbours merge and the bucket width doubles. */
  timeBuckets: number;
  /** A message longer than this is cut (with an ellipsis). */
  messageChars: number;
  /** Source names kept (a run over an `s3://` prefix names one per object); they come one after the other. */
  sources: number;
}

export const DIGEST_LIMITS: DigestLimits = { detailRows: 2000, groups: 200, timeBuckets: 120, messageChars: 300, sources: 20 };

/** The outcomes the failures table lists: the rows that did not get published and need someone's attention. */
export const PROBLEMS = ['failed', 'invalid', 'not_attempted'] as const satisfies readonly OutcomeKind[];
export type ProblemKind = (typeof PROBLEMS)[number];

/** One row of the failures table. */
export interface ProblemRow {
  source: string;
  line: number | undefined;
  sku: string | undefined;
  outcome: ProblemKind;
  /** `errors_by_status`' class: the HTTP status, `network`, `timeout` or `invalid`; none for `not_attempted`. */
  status: string | undefined;
  message: string;
}

/** Rows with the same outcome, status and message (numbers and quoted values aside: see groupKey). */
export interface ErrorGroup {
  outcome: ProblemKind;
  status: string | undefined;
  /** The message of the first row seen. */
  message: string;
  /** True when some rows of the group had a message other than `message` (another number, another value). */
  varies: boolean;
  count: number;
  /** The first row of the group. */
  first: { source: string; line: number | undefined; sku: string | undefined };
}

/** Latency buckets per power of ten: bucket `i` (from 1) holds [10^((i-1)/10), 10^(i/10)) ms; bucket 0 is < 1 ms. */
export const LATENCY_STEPS_PER_DECADE = 10;
/** 1 ms to 10^6 ms (17 min) in steps, then one overflow bucket. */
export const LATENCY_BUCKETS = 6 * LATENCY_STEPS_PER_DECADE + 2;

/** The lower bound, in ms, of latency bucket `i`. */
export function latencyBucketStart(i: number): number {
  return i === 0 ? 0 : 10 ** ((i - 1) / LATENCY_STEPS_PER_DECADE);
}

function latencyBucketOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  // A hair above the bound: 10 ms lands in [10, 12.6), not [7.9, 10), whatever log10's rounding.
  return Math.min(LATENCY_BUCKETS - 1, 1 + Math.floor(Math.log10(ms) * LATENCY_STEPS_PER_DECADE + 1e-9));
}

/** The outcomes that are work done (the summary's `rows_per_second` counts these): the throughput chart's. */
export const WORK_OUTCOMES = ['published', 'validated', 'failed', 'invalid'] as const satisfies readonly OutcomeKind[];

/** The outcomes a row may have, as indexes into the count arrays. */
const OUTCOME_INDEX = Object.fromEntries(OUTCOMES.map((kind, i) => [kind, i])) as Record<OutcomeKind, number>;

/**
 * What the HTML report draws, gathered as the outcomes stream past, in memory bounded by {@link DigestLimits}
 * whatever the number of rows: outcomes per time bucket (throughput), the time each sent row took (a log-scale
 * histogram), the errors grouped with counts, and the first rows that did not publish.
 */
export class RunDigest {
  readonly limits: DigestLimits;
  /** Width of one throughput bucket, ms; doubles when the run outgrows `limits.timeBuckets`. */
  bucketMs: number;
  /** Per time bucket, the rows finished in it by outcome (indexed as {@link OUTCOMES}). */
  readonly buckets: number[][] = [];
  /** Time of the last row, ms since the run began (see {@link RunDigest.add}). */
  lastAtMs = 0;
  /** Per latency bucket, the rows sent by outcome: [published, failed]. */
  readonly latency: [number, number][] = Array.from({ length: LATENCY_BUCKETS }, () => [0, 0]);
  latencyCount = 0;
  latencySumMs = 0;
  latencyMaxMs = 0;
  latencyMinMs = Number.POSITIVE_INFINITY;
  readonly problems: ProblemRow[] = [];
  /** Problem rows seen, by outcome: `problems` holds the first of them. */
  readonly problemCounts: Record<ProblemKind, number> = { failed: 0, invalid: 0, not_attempted: 0 };
  /** The errors grouped; the first row of each is kept with its outcome and status. */
  readonly #errors: ErrorGroups<ErrorGroup['first'] & Pick<ErrorGroup, 'outcome' | 'status'>>;
  /** Rows of errors beyond `limits.groups` distinct ones, by outcome. */
  readonly ungrouped: Record<ProblemKind, number> = { failed: 0, invalid: 0, not_attempted: 0 };
  readonly sources: string[] = [];
  moreSources = 0;
  #lastSource: string | undefined;

  constructor(limits: DigestLimits = DIGEST_LIMITS, bucketMs = 100) {
    this.limits = limits;
    this.bucketMs = bucketMs;
    this.#errors = new ErrorGroups(limits.groups, groupKey);
  }

  /**
   * Count one outcome, settled `atMs` after the run began: its `settledAtMs`, the time its answer came, so that the
   * chart shows the service's pace and not the bursts of the in-order release.
   */
  add(o: RowOutcome, atMs: number): void {
    this.#countTime(OUTCOME_INDEX[o.outcome], atMs);
    if (o.attempts > 0 && (o.outcome === 'published' || o.outcome === 'failed')) this.#countLatency(o.outcome === 'published' ? 0 : 1, o.durationMs);
    if (o.location.source !== this.#lastSource) this.#noteSource(o.location.source);
    if (o.outcome === 'failed' || o.outcome === 'invalid' || o.outcome === 'not_attempted') this.#addProblem(o, o.outcome);
  }

  /** The error groups, largest first (ties in the order first seen). */
  groups(): ErrorGroup[] {
    return this.#errors.groups().map(({ message, varies, rows, first: { outcome, status, ...first } }) => ({ outcome, status, message, varies, count: rows, first }));
  }

  /**
   * The time buckets for a chart: neighbours summed until there are at most `maxBars`, with the rows of work
   * finished per second in each.
   */
  timeline(maxBars: number): { bucketMs: number; buckets: number[][]; rates: number[] } {
    let buckets = this.buckets;
    let bucketMs = this.bucketMs;
    while (buckets.length > maxBars) {
      buckets = mergePairs(buckets);
      bucketMs *= 2;
    }
    const rates = buckets.map((bucket) => (WORK_OUTCOMES.reduce((sum, kind) => sum + (bucket[OUTCOME_INDEX[kind]] ?? 0), 0) * 1000) / bucketMs);
    return { bucketMs, buckets, rates };
  }

  /** The latency (ms) under which a share `q` (0..1) of the sent rows finished, from the histogram; undefined when none. */
  latencyQuantile(q: number): number | undefined {
    if (this.latencyCount === 0) return undefined;
    const rank = q * this.latencyCount;
    let seen = 0;
    for (let i = 0; i < LATENCY_BUCKETS; i++) {
      const [published, failed] = this.latency[i] ?? [0, 0];
      const inBucket = published + failed;
      if (inBucket > 0 && seen + inBucket >= rank) {
        // Geometric interpolation inside the bucket, kept within what was actually seen.
        const lo = Math.max(latencyBucketStart(i), this.latencyMinMs);
        const hi = Math.min(i + 1 < LATENCY_BUCKETS ? latencyBucketStart(i + 1) : this.latencyMaxMs, this.latencyMaxMs);
        const share = (rank - seen) / inBucket;
        const value = lo <= 0 ? hi * share : lo * (hi / lo) ** share;
        return Math.min(this.latencyMaxMs, Math.max(this.latencyMinMs, value));
      }
      seen += inBucket;
    }
    return this.latencyMaxMs;
  }

  #countTime(outcome: number, atMs: number): void {
    const at = Math.max(0, atMs);
    if (at > this.lastAtMs) this.lastAtMs = at;
    let index = Math.floor(at / this.bucketMs);
    while (index >= this.limits.timeBuckets) {
      this.#mergeBuckets();
      index = Math.floor(at / this.bucketMs);
    }
    while (this.buckets.length <= index) this.buckets.push([0, 0, 0, 0, 0, 0]);
    const bucket = this.buckets[index];
    if (bucket !== undefined) bucket[outcome] = (bucket[outcome] ?? 0) + 1;
  }

  /** Halve the resolution. */
  #mergeBuckets(): void {
    const merged = mergePairs(this.buckets);
    this.buckets.splice(0, this.buckets.length, ...merged);
    this.bucketMs *= 2;
  }

  #countLatency(series: 0 | 1, ms: number): void {
    const bucket = this.latency[latencyBucketOf(ms)];
    if (bucket !== undefined) bucket[series]++;
    this.latencyCount++;
    this.latencySumMs += ms;
    if (ms > this.latencyMaxMs) this.latencyMaxMs = ms;
    if (ms < this.latencyMinMs) this.latencyMinMs = ms;
  }

  #noteSource(source: string): void {
    this.#lastSource = source;
    if (this.sources.includes(source)) return;
    if (this.sources.length < this.limits.sources) this.sources.push(source);
    else this.moreSources++;
  }

  #addProblem(o: RowOutcome, outcome: ProblemKind): void {
    this.problemCounts[outcome]++;
    const status = errorClass(o);
    const message = this.#messageOf(o, outcome);
    // Cut as a message is: a page (and this digest) holds a few dozen of them, whatever their size in the catalog.
    const sku = o.sku === undefined || o.sku === '' ? undefined : shortened(printable(o.sku.slice(0, SKU_CHARS * 8), { lines: false }), SKU_CHARS);
    const line = lineOf(o.location);
    // The cause (status, else outcome) tells the outcomes apart too: only a failed row has a status but `invalid`.
    if (!this.#errors.add(status ?? outcome, message, { outcome, status, source: o.location.source, line, sku })) this.ungrouped[outcome]++;
    if (this.problems.length < this.limits.detailRows) this.problems.push({ source: o.location.source, line, sku, outcome, status, message });
  }

  #messageOf(o: RowOutcome, outcome: ProblemKind): string {
    let text: string;
    if (outcome === 'failed') text = o.error !== undefined && o.reason !== undefined && o.reason !== o.error ? `${o.error} (${o.reason})` : (o.error ?? o.reason ?? 'failed');
    else if (outcome === 'invalid') text = o.error ?? o.reason ?? 'invalid row';
    else text = o.reason ?? 'not attempted';
    const safe = safeText(text) ?? '';
    return safe.length > this.limits.messageChars ? `${safe.slice(0, this.limits.messageChars - 1)}…` : safe;
  }
}

/** Buckets 2i and 2i+1 summed into bucket i. */
function mergePairs(buckets: readonly number[][]): number[][] {
  const merged: number[][] = [];
  for (let i = 0; i < buckets.length; i += 2) {
    const a = buckets[i] ?? [];
    const b = buckets[i + 1] ?? [];
    merged.push(a.map((count, k) => count + (b[k] ?? 0)));
  }
  return merged;
}
