/** Buckets per power of ten: about 12% apart, so a quantile is within 12% of the truth, in constant memory. */
const STEPS = 20;
/** From 1 ms to 10^7 ms (close to 3 hours); above, one overflow bucket. */
const BUCKETS = 7 * STEPS + 2;

/** Latencies of a run that never ends (a stream), kept as a log-scale histogram: quantiles in constant memory. */
export class LatencyHistogram {
  readonly #counts = new Float64Array(BUCKETS);
  #count = 0;
  #max = 0;

  add(ms: number): void {
    const bucket = ms >= 1 ? Math.min(BUCKETS - 1, 1 + Math.floor(Math.log10(ms) * STEPS + 1e-9)) : 0;
    this.#counts[bucket] = (this.#counts[bucket] ?? 0) + 1;
    this.#count++;
    if (ms > this.#max) this.#max = ms;
  }

  get count(): number {
    return this.#count;
  }

  /** The latency under which a share `q` (0..1) of the values fell (the upper bound of its bucket); undefined when empty. */
  quantile(q: number): number | undefined {
    if (this.#count === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * this.#count));
    let seen = 0;
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      seen += this.#counts[bucket] ?? 0;
      if (seen >= rank) return bucket === BUCKETS - 1 ? this.#max : Math.min(this.#max, 10 ** (bucket / STEPS));
    }
    return this.#max;
  }
}
