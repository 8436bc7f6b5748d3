/** Half-octave buckets of requests in flight: 1, 1.4, 2, 2.8, 4, ... 512 fit in 19 of them. */
const bucketOf = (inFlight: number): number => Math.round(Math.log2(Math.max(1, inFlight)) * 2);

/**
 * The service's delivered rate by requests in flight, as the adaptive limit has seen it: each judged window gives
 * one point, its mean in flight and the answers accepted during its requests' round trips per ms (as BBR samples
 * delivery, so a burst sent into a queue is measured at the rate the queue drains, not at the rate it was sent).
 * From it, the **knee**: the fewest in flight that still
 * deliver `share` of the best rate seen. More in flight than the knee buys latency, not rows; fewer loses rows, so a
 * latency cut goes no lower. Three windows in a row far below the best rate mean the service changed: the points seen
 * before are forgotten.
 */
export class ThroughputCurve {
  readonly #share: number;
  /** By bucket: the latest point (mean in flight, requests per ms), smoothed over the windows of that bucket. */
  readonly #points = new Map<number, { inFlight: number; rate: number }>();
  /** Windows in a row whose rate was far below the best: three, and the service has changed. */
  #slower = 0;

  constructor(share = 0.95) {
    this.#share = share;
  }

  /** One window: its mean requests in flight, and the answers accepted per ms while they were out. */
  add(inFlight: number, rate: number): void {
    if (!(inFlight > 0 && rate > 0)) return;
    const bucket = bucketOf(inFlight);
    this.#slower = rate < this.#best() * 0.7 ? this.#slower + 1 : 0;
    if (this.#slower >= 3) this.clear();
    const kept = this.#points.get(bucket);
    this.#points.set(bucket, kept === undefined ? { inFlight, rate } : { inFlight: (kept.inFlight + inFlight) / 2, rate: (kept.rate + rate) / 2 });
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

  #best(): number {
    let best = 0;
    for (const point of this.#points.values()) best = Math.max(best, point.rate);
    return best;
  }
}
