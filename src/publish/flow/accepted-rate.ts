const BUCKET_MS = 100;
const BUCKETS = 10;

/** Accepted requests per second over the last second, in ten 100 ms buckets: a sliding count, O(1) per answer. */
export class AcceptedRate {
  readonly #counts = new Array<number>(BUCKETS).fill(0);
  /** The bucket number (time / 100 ms) each slot last counted for. */
  readonly #slotOf = new Array<number>(BUCKETS).fill(-1);
  #first: number | undefined;

  add(now: number): void {
    this.#first ??= now;
    const bucket = Math.floor(now / BUCKET_MS);
    const slot = bucket % BUCKETS;
    if (this.#slotOf[slot] !== bucket) {
      this.#slotOf[slot] = bucket;
      this.#counts[slot] = 0;
    }
    this.#counts[slot] = (this.#counts[slot] ?? 0) + 1;
  }

  /**
   * Requests per second accepted lately: over the newest buckets that together hold at least `minCount` answers
   * (at least two buckets, at most the whole second). A fast service is measured over its last 200 ms, so a burst
   * the service allowed a moment ago does not inflate it; a slow one over enough answers to mean something.
   */
  recentPerSecond(now: number, minCount = 20): number {
    if (this.#first === undefined) return 0;
    const current = Math.floor(now / BUCKET_MS);
    let sum = 0;
    let buckets = 0;
    for (let back = 0; back < BUCKETS; back++) {
      const bucket = current - back;
      const slot = bucket % BUCKETS;
      if (this.#slotOf[slot] === bucket) sum += this.#counts[slot] ?? 0;
      buckets = back + 1;
      if (buckets >= 2 && sum >= minCount) break;
    }
    const spanMs = Math.min(buckets * BUCKET_MS - BUCKET_MS + (now - current * BUCKET_MS), Math.max(BUCKET_MS, now - this.#first));
    return (sum * 1000) / Math.max(1, spanMs);
  }

  /** Requests per second accepted over the last second (or since the first, when that is shorter). */
  perSecond(now: number): number {
    if (this.#first === undefined) return 0;
    const current = Math.floor(now / BUCKET_MS);
    let sum = 0;
    for (let slot = 0; slot < BUCKETS; slot++) {
      const bucket = this.#slotOf[slot] ?? -1;
      if (bucket > current - BUCKETS && bucket <= current) sum += this.#counts[slot] ?? 0;
    }
    const spanMs = Math.min(BUCKETS * BUCKET_MS, Math.max(BUCKET_MS, now - this.#first));
    return (sum * 1000) / spanMs;
  }
}
