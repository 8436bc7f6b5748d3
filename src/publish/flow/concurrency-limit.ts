/** What one answer says about the service's load. */
export type LoadSignal =
  /** Accepted: the latency is a sample of the service's speed. */
  | 'ok'
  /** 503, 502/504, or no answer in time: too many requests at once. */
  | 'overloaded'
  /** 429: too fast. The pacer sets the pace; the limit only stops growing past what is in flight. */
  | 'throttled'
  /** Anything else (a 400 is the row's own fault): says nothing about load. */
  | 'other';

/** A request as the limiter saw it leave: handed back with its answer. */
export interface SendTicket {
  /** Increasing per request sent, so an answer can tell whether it was sent before or after a change. */
  readonly seq: number;
  /**
   * Monotonic milliseconds: when the request was handed to the sender, then when it was written to a connection if
   * the sender says so (the wait for a connection, and this process's own backlog in a burst, are not the service's).
   */
  sentAt: number;
  /** Requests in flight when it left, itself included. */
  readonly inFlight: number;
}

/**
 * How many requests may be in flight. The engine sends while its in-flight count is below `limit`, reports each
 * send and each answer, and nothing else decides; a new policy is a new implementation of this interface.
 */
export interface ConcurrencyLimit {
  /** Requests that may be in flight now (>= 1). */
  readonly limit: number;
  /** The limit the next round trip may grow to, where it is known to be more than `limit` (a slow start-up). */
  readonly upcoming?: number;
  onSend(now: number): SendTicket;
  onAnswer(ticket: SendTicket, now: number, signal: LoadSignal): void;
  /** What the limit has learned now, as a function that puts it back (a cut that did not help is undone). */
  checkpoint?(): () => void;
}

/** `--concurrency N`: exactly N, whatever the service says. */
export class FixedLimit implements ConcurrencyLimit {
  #seq = 0;
  #inFlight = 0;
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a whole number >= 1, got ${limit}`);
  }

  onSend(now: number): SendTicket {
    return { seq: ++this.#seq, sentAt: now, inFlight: ++this.#inFlight };
  }

  onAnswer(): void {
    this.#inFlight--;
  }
}
