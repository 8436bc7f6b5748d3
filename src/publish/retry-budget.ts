/** Options of a {@link RetryBudget}. */
export interface RetryBudgetOptions {
  /** Retries allowed per first attempt made so far (0.1: one retry per ten rows sent). */
  ratio?: number;
  /** Retries allowed before any ratio applies, so a small run still retries freely. */
  minRetries?: number;
}

/** A request whose connection was cut before its answer (a reset as the service went away): when it left, when it failed. */
export interface CutRequest {
  sentAt: number;
  now: number;
}

/**
 * The run-wide allowance of retries: `minRetries + ratio * first attempts so far`. Each retry spends one; past the
 * allowance, retries are refused and the row fails fast. So a service that is down receives at most
 * `rows + minRetries + ratio * rows` requests from a run, not `rows * maxAttempts`.
 *
 * Cut connections are counted by **event**, not by request: when a service goes away (a restart), every request in
 * flight is cut at once, and hundreds of them are one failure, not hundreds. A cut request that left before the
 * current event began belongs to it and spends nothing; a cut request sent after it (a retry that failed again)
 * spends one, and begins a new event only if the service accepted a request since the last one. So a service that
 * accepts nothing and cuts every connection pays per request as before: it receives at most
 * `rows + minRetries + ratio * rows` requests plus the one window in flight when it stopped working.
 */
export class RetryBudget {
  readonly #ratio: number;
  readonly #minRetries: number;
  #requests = 0;
  #spent = 0;
  #refused = 0;
  /** When the latest cut-connection event began (its first failure). */
  #cutEventAt = -Infinity;
  /** An answer was accepted since the latest event began: the next event may be one. */
  #acceptedSinceEvent = true;

  constructor(options: RetryBudgetOptions = {}) {
    this.#ratio = options.ratio ?? 0.1;
    this.#minRetries = options.minRetries ?? 50;
    if (!(this.#ratio >= 0) || !(this.#minRetries >= 0)) throw new RangeError('retry budget ratio and minRetries must be >= 0');
  }

  /** Count a first attempt of a row; it earns `ratio` retries. */
  recordRequest(): void {
    this.#requests++;
  }

  /** Count an accepted answer: the service works, so the next cut of many requests at once is one event. */
  recordAccepted(): void {
    this.#acceptedSinceEvent = true;
  }

  /**
   * Spend one retry if the allowance has one left; false means the retry must not be sent. `cut`: the attempt's
   * connection was cut before an answer; if it left before the current event of cuts began, it is part of that
   * event, already paid for.
   */
  tryAcquire(cut?: CutRequest): boolean {
    if (cut !== undefined && cut.sentAt < this.#cutEventAt) return true;
    if (this.#spent < this.allowance) {
      this.#spent++;
      if (cut !== undefined && this.#acceptedSinceEvent) {
        // A working service went away: everything cut with this request is one event. Until it accepts again, a cut
        // sent since (a retry into the dying service) pays and begins nothing, and the event's own stay paid for.
        this.#cutEventAt = cut.now;
        this.#acceptedSinceEvent = false;
      }
      return true;
    }
    this.#refused++;
    return false;
  }

  /** The retries allowed so far (whole retries only). */
  get allowance(): number {
    // The epsilon keeps 0.29 * 100 = 28.999999999999996 from losing a retry to rounding.
    return Math.floor(this.#minRetries + this.#ratio * this.#requests + 1e-9);
  }

  /** Retries sent so far. */
  get spent(): number {
    return this.#spent;
  }

  /** Retries refused so far. */
  get refused(): number {
    return this.#refused;
  }

  /** True while no retry is left; more first attempts may earn new ones. */
  get exhausted(): boolean {
    return this.#spent >= this.allowance;
  }
}
