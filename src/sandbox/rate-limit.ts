/**
 * A token bucket: `perSecond` requests a second on average, with a burst of `burst` (default one second's worth, at
 * least 1). The clock is injectable so the arithmetic can be tested without waiting.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly capacity: number;

  constructor(
    private readonly perSecond: number,
    burst?: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.capacity = Math.max(1, burst ?? perSecond);
    this.tokens = this.capacity;
    this.last = now();
  }

  /** Take one token; false when the bucket is empty. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
