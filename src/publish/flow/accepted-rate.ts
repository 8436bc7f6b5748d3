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
