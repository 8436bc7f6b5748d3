import type { EngineClock } from './engine-types.js';

/**
 * One timer: with `setFor`, set for the earliest time asked of it (the engine's single wake-up for pacing, probes and
 * retries); with `setAt`, for exactly the time given (a deadline that moves). With `unref`, it never keeps the
 * process alive by itself.
 */
export class Alarm {
  readonly #clock: EngineClock;
  readonly #now: () => number;
  readonly #ring: () => void;
  readonly #unref: boolean;
  #timer: unknown;
  #at = Infinity;

  constructor(clock: EngineClock, now: () => number, ring: () => void, options: { unref?: boolean } = {}) {
    this.#clock = clock;
    this.#now = now;
    this.#ring = ring;
    this.#unref = options.unref === true;
  }

  /** Ring at `at` (monotonic ms), unless already set to ring earlier. */
  setFor(at: number): void {
    if (at < this.#at) this.setAt(at);
  }

  /** Ring at `at` (monotonic ms), earlier or later than it was set; never, for Infinity. */
  setAt(at: number): void {
    if (at === this.#at) return;
    this.clear();
    if (at === Infinity) return;
    this.#at = at;
    const timer = this.#clock.setTimeout(this.#fire, Math.max(0, at - this.#now()));
    if (this.#unref) (timer as { unref?: () => void } | null | undefined)?.unref?.();
    this.#timer = timer;
  }

  clear(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Infinity;
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#at = Infinity;
    this.#ring();
  };
}
