import type { EngineClock } from './engine-types.js';

/** One timer, set for the earliest time asked of it: the engine's single wake-up for pacing, probes and retries. */
export class Alarm {
  readonly #clock: EngineClock;
  readonly #now: () => number;
  readonly #ring: () => void;
  #timer: unknown;
  #at = Infinity;

  constructor(clock: EngineClock, now: () => number, ring: () => void) {
    this.#clock = clock;
    this.#now = now;
    this.#ring = ring;
  }

  /** Ring at `at` (monotonic ms), unless already set to ring earlier. */
  setFor(at: number): void {
    if (at >= this.#at) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#at = at;
    this.#timer = this.#clock.setTimeout(this.#fire, Math.max(0, at - this.#now()));
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
