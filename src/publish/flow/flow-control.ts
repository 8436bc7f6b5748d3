import type { FailureKind } from '../../client/classify.js';
import type { Breaker} from './breaker.js';
import { type BreakerVerdict } from './breaker.js';
import type { ConcurrencyLimit, SendTicket } from './concurrency-limit.js';
import type { Pacer } from './pacer.js';

/** How the service pushed back during a run, in requests. */
export interface PushbackCounts {
  /** 429 answers. */
  throttled: number;
  /** 503 answers, and 502/504 from a proxy in front of the service. */
  overloaded: number;
  /** Requests with no answer in time. */
  timeouts: number;
  /** Requests that could not reach the service (refused, DNS, TLS, connect timeout). */
  unreachable: number;
}

/**
 * The three controls of a run's sending, in one place: how many requests at once (the concurrency limit), how
 * fast (the pacer), and whether at all (the breaker). The engine asks when the next request may leave, and reports
 * each send and each answer; everything these controls learn, they learn from that.
 */
export class FlowControl {
  readonly limit: ConcurrencyLimit;
  readonly pacer: Pacer;
  readonly breaker: Breaker;
  readonly pushback: PushbackCounts = { throttled: 0, overloaded: 0, timeouts: 0, unreachable: 0 };
  #inFlight = 0;
  #peakInFlight = 0;
  #latestSeq = 0;
  #peakLimit = 0;

  constructor(limit: ConcurrencyLimit, pacer: Pacer, breaker: Breaker) {
    this.limit = limit;
    this.pacer = pacer;
    this.breaker = breaker;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The most requests in flight at once so far. */
  get peakInFlight(): number {
    return this.#peakInFlight;
  }

  /** The highest concurrency limit reached so far. */
  get peakLimit(): number {
    return Math.max(this.#peakLimit, this.limit.limit);
  }

  /** Set once the service is found down: the run must stop. */
  get verdict(): BreakerVerdict | undefined {
    return this.breaker.verdict;
  }

  /** When the next request may leave: `now`, a later time, or Infinity while the window is full or a probe is out. */
  nextSendAt(now: number): number {
    if (this.#inFlight >= this.limit.limit) return Infinity;
    return Math.max(this.pacer.nextSendAt(now), this.breaker.nextSendAt(now));
  }

  send(now: number): SendTicket {
    if (++this.#inFlight > this.#peakInFlight) this.#peakInFlight = this.#inFlight;
    const ticket = this.limit.onSend(now);
    this.#latestSeq = ticket.seq;
    this.pacer.onSend(now);
    this.breaker.onSend(now, ticket.seq);
    return ticket;
  }

  accepted(ticket: SendTicket, now: number): void {
    this.#answered();
    this.limit.onAnswer(ticket, now, 'ok');
    this.pacer.onAccepted(now);
    this.breaker.onAccepted(now);
  }

  /** A failed attempt; `retryAfterMs` is the service's Retry-After, when it sent one. */
  failed(ticket: SendTicket, now: number, kind: FailureKind, error: unknown, retryAfterMs: number | undefined): void {
    this.#answered();
    const signal = kind === 'overloaded' || kind === 'timeout' ? 'overloaded' : kind === 'throttled' ? 'throttled' : 'other';
    this.limit.onAnswer(ticket, now, signal);
    if (kind === 'throttled' || kind === 'overloaded') {
      this.pushback[kind]++;
      this.pacer.onPushback(now, ticket.seq, this.#latestSeq, kind === 'throttled', retryAfterMs);
    } else if (kind === 'timeout') this.pushback.timeouts++;
    else if (kind === 'unreachable') this.pushback.unreachable++;
    this.breaker.onFailure(now, ticket.seq, kind, error);
  }

  #answered(): void {
    this.#inFlight--;
    const { limit } = this.limit;
    if (limit > this.#peakLimit) this.#peakLimit = limit;
  }
}
