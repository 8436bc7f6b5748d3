/**
 * How many requests may be in flight, learned from the service's answers (TCP-style congestion control):
 *
 * - the run starts with **one** request in flight, so a misconfigured run fails after one request, not a burst;
 * - **slow start**: each success adds one (the window doubles per round of successes) up to `max`;
 * - **on 429** (`onThrottle`) the window halves (never below 1) and slow start ends; from then on it grows
 *   **additively**, by one per `limit` successes, never above `max`. The requests already in flight when the window
 *   shrank were sent under the old window, so their 429s do not shrink it again: at most one halving per window;
 * - **on another retryable failure** (`onFailure`: 5xx, network, timeout) the window keeps its size but slow start
 *   ends, so a flaky service sees additive growth only.
 *
 * Pure: the engine reports answers, reads `limit`, and sends while its in-flight count is below it.
 */
export class AdaptiveWindow {
  readonly #max: number;
  #limit = 1;
  /** Slow start while `limit < #threshold`. */
  #threshold: number;
  /** Successes counted towards the next additive step. */
  #credit = 0;
  /** Answers still expected from requests sent before the last halving; their 429s are not new news. */
  #stale = 0;

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a whole number >= 1, got ${max}`);
    this.#max = max;
    this.#threshold = max;
  }

  /** The requests that may be in flight now (1..max). */
  get limit(): number {
    return this.#limit;
  }

  /** The configured ceiling. */
  get max(): number {
    return this.#max;
  }

  onSuccess(): void {
    this.#answered();
    if (this.#limit >= this.#max) return;
    if (this.#limit < this.#threshold) {
      this.#limit++;
      return;
    }
    if (++this.#credit >= this.#limit) {
      this.#credit = 0;
      this.#limit++;
    }
  }

  onThrottle(): void {
    if (this.#stale > 0) {
      this.#stale--;
      return;
    }
    // The other requests of this window are already in flight and may come back 429 too.
    this.#stale = this.#limit - 1;
    this.#limit = Math.max(1, Math.floor(this.#limit / 2));
    this.#threshold = this.#limit;
    this.#credit = 0;
  }

  onFailure(): void {
    this.#answered();
    this.#threshold = Math.min(this.#threshold, this.#limit);
  }

  #answered(): void {
    if (this.#stale > 0) this.#stale--;
  }
}
