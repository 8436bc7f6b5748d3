/**
 * A token bucket for `--rate N` (requests per second). The bucket holds up to `max(1, N / 10)` tokens (a burst of
 * a tenth of a second) and refills at N per second. `delayMs()` reserves the next slot at once, even when the bucket
 * is empty (it goes into debt), and returns how long the caller must wait before sending; so concurrent callers
 * queue up in order and the long-run rate never exceeds N.
 */
export class RateLimiter {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  constructor(perSecond: number, now: () => number = Date.now) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond)) throw new RangeError(`rate must be a number > 0, got ${perSecond}`);
    this.#perMs = perSecond / 1000;
    this.#burst = Math.max(1, perSecond / 10);
    this.#now = now;
    this.#tokens = this.#burst;
    this.#at = now();
  }

  /** Reserve a slot; the milliseconds to wait before sending, 0 when a token is free now. */
  delayMs(): number {
    const now = this.#now();
    // A clock that steps back (or a fake one) must not drain the bucket.
    if (now > this.#at) {
      this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) * this.#perMs);
      this.#at = now;
    }
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil(-this.#tokens / this.#perMs);
  }
}
