/** Half-octave buckets of requests in flight: 1, 1.4, 2, 2.8, 4, ... 512 fit in 19 of them. */
const bucketOf = (inFlight: number): number => Math.round(Math.log2(Math.max(1, inFlight)) * 2);

/**
 * The service's delivered rate by requests in flight, as the adaptive limit has seen it: each judged window gives
 * one point, its mean in flight and the answers accepted during its requests' round trips per ms (as BBR samples
 * delivery, so a burst sent into a queue is measured at the rate the queue drains, not at the rate it was sent).
 * From it, the **knee**: the fewest in flight that still
 * deliver `share` of the best rate seen. More in flight than the knee buys latency, not rows; fewer loses rows, so a
 * latency cut goes no lower. A window that delivered far less than fewer in flight did before stalled (see
 * {@link ThroughputCurve.add}): a cut would not help it.
 */
export class ThroughputCurve {
  readonly #share: number;
  /** By bucket: the latest point (mean in flight, requests per ms), smoothed over the windows of that bucket. */
  readonly #points = new Map<number, { inFlight: number; rate: number }>();
  /** Windows in a row that fell short of the curve: three, and the service has changed. */
  #slower = 0;

  constructor(share = 0.95) {
    this.#share = share;
  }

  /**
   * One window: its mean requests in flight, and the answers accepted per ms while they were out. Returns true when
   * the window fell short: it delivered under 0.7 of what no more in flight delivered before, so its latency was a
   * stall (a busy CPU, a pause of this process or of the service), not a queue that more in flight built. Such a
   * window is not recorded; three in a row mean the service changed: the points seen before are forgotten.
   */
  add(inFlight: number, rate: number): boolean {
    if (!(inFlight > 0 && rate > 0)) return false;
    const short = rate < this.#bestUpTo(inFlight) * 0.7;
    this.#slower = short ? this.#slower + 1 : 0;
    if (this.#slower >= 3) this.clear();
    else if (short) return true;
    const bucket = bucketOf(inFlight);
    const kept = this.#points.get(bucket);
    this.#points.set(bucket, kept === undefined ? { inFlight, rate } : { inFlight: (kept.inFlight + inFlight) / 2, rate: (kept.rate + rate) / 2 });
    return false;
  }

  /**
   * The fewest in flight that deliver `share` of the best rate seen (0 before any point). Between the most in flight
   * seen to fall short of it and the fewest seen to reach it, no point says where the knee is: there it is taken
   * where the best rate would need no queue at all, best rate x `noLoadMs` (Little's law), so a window that jumped
   * past the knee in start-up is cut back towards it.
   */
  knee(noLoadMs: number): number {
    const best = this.#best();
    let reaches = Infinity;
    for (const point of this.#points.values()) if (point.rate >= best * this.#share) reaches = Math.min(reaches, point.inFlight);
    if (!Number.isFinite(reaches)) return 0;
    let short = 0;
    for (const point of this.#points.values()) if (point.inFlight < reaches) short = Math.max(short, point.inFlight);
    return Math.min(reaches, Math.max(short, best * noLoadMs));
  }

  /** True when `rate` beats the best rate seen by 2% or more: the queue it costs still buys rows, the window may grow on. */
  pays(rate: number): boolean {
    const best = this.#best();
    return best > 0 && rate >= best * 1.02;
  }

  clear(): void {
    this.#points.clear();
    this.#slower = 0;
  }

  /** The best rate seen with no more in flight than `inFlight` (within its bucket). */
  #bestUpTo(inFlight: number): number {
    const bucket = bucketOf(inFlight);
    let best = 0;
    for (const point of this.#points.values()) if (bucketOf(point.inFlight) <= bucket) best = Math.max(best, point.rate);
    return best;
  }

  #best(): number {
    let best = 0;
    for (const point of this.#points.values()) best = Math.max(best, point.rate);
    return best;
  }
}
