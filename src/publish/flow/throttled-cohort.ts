/** A request the pacer hears the answer to: its place in the send order and when it left. */
export interface SentRequest {
  readonly seq: number;
  readonly sentAt: number;
}

/** A cohort of fewer requests than this tells nothing worth waiting for. */
const MIN_REQUESTS = 40;
/** Nor one sent over less than this many ms. */
const MIN_SPAN_MS = 10;
/** The cohort is judged once this share of it is answered... */
const ANSWERED_SHARE = 0.9;
/** ...and the first cohort of a run waits for that at most this long. */
const MAX_WAIT_MS = 1000;
/** The accepted latencies the slowest answer is looked for among. */
const LATENCIES = 32;

/**
 * What a rate-limited service accepts from this run, learned from the requests sent between the first rejected
 * request of an episode and the moment its 429 came back (the cohort): the share of them it accepted, times the rate
 * they were sent at.
 *
 * Counted by answer, that rate is the burst a token bucket allowed before it ran dry: the answers to it go on
 * arriving for a round trip after the first 429, which itself comes a round trip late on a service that answers
 * 429s at its usual latency (measured against the sandbox's 400/s: 1,580/s taken for its rate, and 2.5-3 % of a
 * run's requests rejected). The cohort reached an empty bucket while the run still sent faster than it refills:
 * what the bucket let through of it is its rate. It is judged once nearly all of it is answered, so a service that
 * answers 429s at once and 201s later is not taken to accept nothing.
 */
export class ThrottledCohort {
  readonly #fromSeq: number;
  readonly #toSeq: number;
  readonly #spanMs: number;
  #answered = 0;
  #accepted = 0;

  private constructor(first: SentRequest, latestSeq: number, now: number) {
    this.#fromSeq = first.seq;
    this.#toSeq = latestSeq;
    this.#spanMs = now - first.sentAt;
    this.note(first, false);
  }

  /**
   * The cohort of the 429 to `first` answered now, with `latestSeq` the last request sent; undefined when it is too
   * small to tell (a service that answers its 429s at once shows the run its limit within the burst).
   */
  static begin(first: SentRequest, latestSeq: number, now: number): ThrottledCohort | undefined {
    if (latestSeq - first.seq + 1 < MIN_REQUESTS || now - first.sentAt < MIN_SPAN_MS) return undefined;
    return new ThrottledCohort(first, latestSeq, now);
  }

  /** How long the run waits for the cohort's answers: the slowest of `latencies` (recent accepted ones) and half again. */
  static waitMs(latencies: number[]): number {
    return Math.min(MAX_WAIT_MS, Math.max(MIN_SPAN_MS, ...latencies) * 1.5);
  }

  /** An answer: `ok` when accepted. Only the cohort's own requests count. */
  note(request: SentRequest, ok: boolean): void {
    if (request.seq < this.#fromSeq || request.seq > this.#toSeq) return;
    this.#answered++;
    if (ok) this.#accepted++;
  }

  /** Requests a second the service accepted of the cohort, once nearly all of it is answered; else undefined. */
  rate(): number | undefined {
    const size = this.#toSeq - this.#fromSeq + 1;
    if (this.#answered < size * ANSWERED_SHARE) return undefined;
    return ((this.#accepted / this.#answered) * size * 1000) / this.#spanMs;
  }

  /** The ring of accepted latencies a pacer keeps for {@link waitMs}. */
  static noteLatency(latencies: number[], at: number, latency: number): void {
    if (latencies.length < LATENCIES) latencies.push(latency);
    else latencies[at % LATENCIES] = latency;
  }
}
