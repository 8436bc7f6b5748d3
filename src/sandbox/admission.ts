/** What {@link Admission.enter} decided for one request. */
export type AdmissionVerdict = 'serve' | 'wait' | 'refuse';

/**
 * Capacity and queue of a service: `capacity` requests in service at once, up to `queue` more waiting (FIFO),
 * the rest refused. Knows nothing of HTTP or time, so it can be tested alone.
 */
export class Admission {
  private inService = 0;
  // A Set keeps insertion order (FIFO) and removes a request that gave up in O(1).
  private readonly waiting = new Set<() => void>();
  /** The most requests held at once: in service plus waiting. */
  peakInFlight = 0;
  /** The most requests waiting at once. */
  peakQueued = 0;

  constructor(
    private readonly capacity: number,
    private readonly queue: number,
  ) {}

  /**
   * A request arrives. `serve`: it holds a slot now and must `release()` it once answered. `wait`: it is queued and
   * `onTurn` is called, holding a slot, when one frees. `refuse`: capacity and queue are full.
   */
  enter(onTurn: () => void): AdmissionVerdict {
    let verdict: AdmissionVerdict;
    if (this.inService < this.capacity) {
      this.inService++;
      verdict = 'serve';
    } else if (this.waiting.size < this.queue) {
      this.waiting.add(onTurn);
      this.peakQueued = Math.max(this.peakQueued, this.waiting.size);
      verdict = 'wait';
    } else return 'refuse';
    this.peakInFlight = Math.max(this.peakInFlight, this.inService + this.waiting.size);
    return verdict;
  }

  /** A waiting request gave up (its client left); false when it was no longer waiting. */
  leave(onTurn: () => void): boolean {
    return this.waiting.delete(onTurn);
  }

  /** A request in service is done: its slot passes to the longest waiting request, if any. Call once per slot. */
  release(): void {
    const next = this.waiting.values().next();
    if (next.done) {
      this.inService--;
      return;
    }
    this.waiting.delete(next.value);
    next.value();
  }
}
