import type { FailureKind } from '../../client/classify.js';

/** Options of a {@link Breaker}. */
export interface BreakerOptions {
  /**
   * How long the service may go without accepting anything (only pushback, timeouts or no connection) before the
   * run gives up on it. Default 60,000 ms.
   */
  giveUpAfterMs?: number;
  /** Timeouts in a row, with nothing accepted in between, that open the breaker. Default 3. */
  timeoutsToOpen?: number;
  /** The first wait before a probe, in ms; it doubles with each failed probe, up to 15 s. Default 1,000. */
  probeDelayMs?: number;
}

/** Why the breaker gave up on the service. */
export interface BreakerVerdict {
  /** The failure that decided it. */
  error: unknown;
  /** What the run saw, in a few words for the person reading the message. */
  reason: string;
  /** What to check, when the failure itself does not say. */
  hint?: string;
}

const HUNG_HINT = 'the service takes connections but does not answer: check its status; if it is only slow, allow a longer request timeout';
const STALLED_HINT = 'the service is up but turned every request away as busy: try again later, or give it longer before giving up';
const GONE_HINT = 'the service accepted rows, then could no longer be reached: check that it is up and reachable, then resume';

/** What to check when the run gives up, by the last failure it saw: the hint says what that failure shows. */
function stalledHint(kind: FailureKind): string {
  if (kind === 'timeout') return HUNG_HINT;
  if (kind === 'unreachable') return GONE_HINT;
  return STALLED_HINT;
}

/**
 * Tells a down service from a busy one. Closed, every request may leave. It opens when the service cannot be
 * reached (refused, no route, DNS, TLS) or when requests time out one after another with nothing accepted; open,
 * nothing is sent. Before anything was accepted, an open breaker gives up at once: the configuration is wrong or
 * the service is down, and a handful of requests have shown it. After rows were accepted, it waits and half-opens:
 * one probe (the next row) goes out; an accepted probe closes it, a failed one opens it again for twice as long,
 * until the service has gone `giveUpAfterMs` without accepting anything.
 *
 * Pushback (429, 503) never opens it: a busy service makes progress. Only a service that accepts nothing at all for
 * `giveUpAfterMs` is given up on. Pure: the caller passes monotonic milliseconds. A failure tells it only after the
 * fact; so that the run gives up at that deadline, not at the next failure (which a held or backed-off retry may
 * bring seconds later), the caller keeps a timer for {@link Breaker.giveUpAt} and calls {@link Breaker.onDeadline}.
 */
export class Breaker {
  readonly #giveUpAfterMs: number;
  readonly #timeoutsToOpen: number;
  readonly #probeDelayMs: number;
  #state: 'closed' | 'open' | 'half-open' = 'closed';
  #accepted = 0;
  #lastProgressAt: number;
  #timeoutsInARow = 0;
  #probeAt = 0;
  #probeDelay: number;
  /** The sequence number of the probe in flight. */
  #probeSeq = 0;
  #verdict: BreakerVerdict | undefined;
  /**
   * The last pushback, timeout or no connection since something was last accepted: the service has been asked and
   * accepted nothing. Undefined while there is none (a run with nothing to send is not kept waiting on the service).
   */
  #failedSinceProgress: { error: unknown; kind: FailureKind } | undefined;

  constructor(now: number, options: BreakerOptions = {}) {
    this.#giveUpAfterMs = options.giveUpAfterMs ?? 60_000;
    this.#timeoutsToOpen = options.timeoutsToOpen ?? 3;
    this.#probeDelayMs = options.probeDelayMs ?? 1000;
    this.#probeDelay = this.#probeDelayMs;
    this.#lastProgressAt = now;
  }

  get state(): 'closed' | 'open' | 'half-open' {
    return this.#state;
  }

  /** Set once the run must stop: the service is down. */
  get verdict(): BreakerVerdict | undefined {
    return this.#verdict;
  }

  /**
   * When the run gives up on the service unless something is accepted first (monotonic ms): the last progress plus
   * `giveUpAfterMs`, once a pushback, timeout or failure to connect came after it. Infinity otherwise, and once a
   * verdict is given.
   */
  get giveUpAt(): number {
    if (this.#verdict !== undefined || this.#failedSinceProgress === undefined) return Infinity;
    return this.#lastProgressAt + this.#giveUpAfterMs;
  }

  /** The caller's timer for {@link giveUpAt} rang: the verdict, with the last failure, when the time has come. */
  onDeadline(now: number): void {
    const failed = this.#failedSinceProgress;
    if (this.#verdict !== undefined || failed === undefined) return;
    this.#stalled(now, failed.error, failed.kind);
  }

  /** When the next request may leave: now when closed, the probe time when open, never while a probe is out. */
  nextSendAt(now: number): number {
    if (this.#state === 'closed') return now;
    if (this.#state === 'open') return Math.max(now, this.#probeAt);
    return Infinity;
  }

  onSend(now: number, seq: number): void {
    if (this.#state === 'open' && now >= this.#probeAt) {
      this.#state = 'half-open';
      this.#probeSeq = seq;
    }
  }

  onAccepted(now: number): void {
    this.#accepted++;
    this.#lastProgressAt = now;
    this.#failedSinceProgress = undefined;
    this.#close();
  }

  /** A failed attempt of the request sent as `seq`, of the given kind. */
  onFailure(now: number, seq: number, kind: FailureKind, error: unknown): void {
    if (this.#verdict !== undefined) return;
    const probe = this.#state === 'half-open' && seq === this.#probeSeq;
    if (kind === 'timeout' || kind === 'unreachable' || kind === 'throttled' || kind === 'overloaded') this.#failedSinceProgress = { error, kind };
    if (kind === 'timeout') {
      this.#timeoutsInARow++;
      // A probe that times out is an answer to the probe: open again, or nothing would ever be sent again.
      if (this.#timeoutsInARow >= this.#timeoutsToOpen || probe) this.#down(now, seq, error, kind, `no answer to ${this.#timeoutsInARow} requests in a row`, HUNG_HINT);
    } else if (kind === 'unreachable') {
      this.#down(now, seq, error, kind, 'cannot connect', undefined);
    } else {
      if (kind === 'throttled' || kind === 'overloaded') this.#stalled(now, error, kind);
      // Any other answer to the probe (pushback, a 5xx, the row's own 4xx) shows the service is back: the limit
      // and the pace deal with a busy one. Left half-open, nothing would be sent again.
      if (probe && this.#verdict === undefined) this.#close();
    }
    // Otherwise a transient error or a row's own failure says nothing about whether the service is up.
  }

  #close(): void {
    this.#state = 'closed';
    this.#timeoutsInARow = 0;
    this.#probeDelay = this.#probeDelayMs;
  }

  #down(now: number, seq: number, error: unknown, kind: FailureKind, reason: string, hint: string | undefined): void {
    if (this.#accepted === 0) {
      this.#verdict = { error, reason: `${reason}, and no request was accepted`, ...(hint === undefined ? {} : { hint }) };
      return;
    }
    if (this.#state === 'open') return;
    if (this.#state === 'half-open' && seq !== this.#probeSeq) return;
    if (this.#stalled(now, error, kind)) return;
    if (this.#state === 'half-open') this.#probeDelay = Math.min(15_000, this.#probeDelay * 2);
    this.#state = 'open';
    // The last probe goes out when the give-up time comes, not a doubled delay after it.
    this.#probeAt = Math.min(now + this.#probeDelay, Math.max(now, this.#lastProgressAt + this.#giveUpAfterMs));
  }

  /** True (and a verdict) when nothing has been accepted for `giveUpAfterMs`. */
  #stalled(now: number, error: unknown, kind: FailureKind): boolean {
    const idle = now - this.#lastProgressAt;
    if (idle < this.#giveUpAfterMs) return false;
    this.#verdict = { error, reason: `nothing accepted for ${Math.round(idle / 1000)} s`, hint: stalledHint(kind) };
    return true;
  }
}
