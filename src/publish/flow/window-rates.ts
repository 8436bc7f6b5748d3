/** A window's answers a ms, by Little's law: the requests in flight over their mean latency. */
interface WindowRate {
  limit: number;
  perMs: number;
}

/** Windows are remembered by size, one per step of 5%: at most some 160 from 1 to 2,048. */
const STEP = Math.log(1.05);

/**
 * The answers a ms of the windows a limiter judged, the latest of each size, to tell whether a bigger window still
 * buys answers: a queue at a service adds latency in proportion to what it adds in flight (the answers a ms stay
 * where they were), while a service that does more at once answers a little slower but more a second.
 */
export class WindowRates {
  readonly #bySize = new Map<number, WindowRate>();

  note(limit: number, inFlight: number, meanMs: number): void {
    this.#bySize.set(Math.round(Math.log(limit) / STEP), { limit, perMs: inFlight / meanMs });
  }

  /** Forget them all (the service got slower for everyone): the windows after are judged against one another only. */
  clear(): void {
    this.#bySize.clear();
  }

  /**
   * Whether a window of `limit` with `inFlight` answered in `meanMs` still bought answers: at least `share` of what
   * it grew by since the largest window `lookback` times smaller or less (0.5: 30% more in flight gave 15% more
   * answers a ms). False with no such window to compare with.
   */
  stillBuys(limit: number, inFlight: number, meanMs: number, lookback: number, share: number): boolean {
    let reference: WindowRate | undefined;
    for (const rate of this.#bySize.values()) {
      if (rate.limit * lookback <= limit && (reference === undefined || rate.limit > reference.limit)) reference = rate;
    }
    if (reference === undefined) return false;
    return inFlight / meanMs >= reference.perMs * (1 + share * (limit / reference.limit - 1));
  }
}
