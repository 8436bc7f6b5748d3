/** Options of a {@link RetryBudget}. */
export interface RetryBudgetOptions {
  /** Retries allowed per first attempt made so far (0.1: one retry per ten rows sent). */
  ratio?: number;
  /** Retries allowed before any ratio applies, so a small run still retries freely. */
  minRetries?: number;
}

/**
 * The run-wide allowance of retries: `minRetries + ratio * first attempts so far`. Each retry spends one; past the
 * allowance, retries are refused and the row fails fast. So a service that is down receives at most
 * `rows + minRetries + ratio * rows` requests from a run, not `rows * maxAttempts`.
 */
export class RetryBudget {
  readonly #ratio: number;
  readonly #minRetries: number;
  #requests = 0;
  #spent = 0;
  #refused = 0;

  constructor(options: RetryBudgetOptions = {}) {
    this.#ratio = options.ratio ?? 0.1;
    this.#minRetries = options.minRetries ?? 50;
    if (!(this.#ratio >= 0) || !(this.#minRetries >= 0)) throw new RangeError('retry budget ratio and minRetries must be >= 0');
  }

  /** Count a first attempt of a row; it earns `ratio` retries. */
  recordRequest(): void {
    this.#requests++;
  }

  /** Spend one retry if the allowance has one left; false means the retry must not be sent. */
  tryAcquire(): boolean {
    if (this.#spent < this.allowance) {
      this.#spent++;
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
