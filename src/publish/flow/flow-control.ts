import type { FailureKind } from '../../client/classify.js';
import type { Breaker} from './breaker.js';
import { type BreakerVerdict } from './breaker.js';
import type { ConcurrencyLimit, SendTicket } from './concurrency-limit.js';
import type { Pacer } from './pacer.js';
import type { EngineObserver } from '../engine-types.js';
import type { PushbackCounts } from './pushback-counts.js';
import { PushbackFilter } from './pushback-filter.js';

export type { PushbackCounts } from './pushback-counts.js';


const NO_HOLD = { holdLimit: false, holdPace: false } as const;

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
  /** Which 429s and 503s are load, and which the service gives whatever the pace. */
  readonly #filter = new PushbackFilter();
  /** Puts the limit and the pace back as they were before the cuts of the trials under way. */
  #undo: (() => void)[] = [];
  /** A 429 or 503 with Retry-After was seen: the service has a limit of its own. */
  #askedToWait = false;
  /** The window and the pace when the trial under way began. */
  #trialFrom: { limit: number; rate: number | undefined; holdWindow: boolean } | undefined;
  /** Told of limit, pace and breaker changes; without it nothing is compared or built. */
  readonly #observer: EngineObserver | undefined;

  constructor(limit: ConcurrencyLimit, pacer: Pacer, breaker: Breaker, observer?: EngineObserver) {
    this.limit = limit;
    this.pacer = pacer;
    this.breaker = breaker;
    this.#observer = observer;
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

  /** When the run gives up on the service unless something is accepted first (see {@link Breaker.giveUpAt}). */
  get giveUpAt(): number {
    return this.breaker.giveUpAt;
  }

  /** The give-up time has come: the breaker's verdict, when nothing was accepted meanwhile. */
  onDeadline(now: number): BreakerVerdict | undefined {
    this.breaker.onDeadline(now);
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
    const observer = this.#observer;
    const breakerWas = observer === undefined ? undefined : this.breaker.state;
    this.breaker.onSend(now, ticket.seq);
    if (observer !== undefined && breakerWas !== this.breaker.state) observer({ type: 'breaker', state: this.breaker.state, previous: breakerWas ?? 'closed' });
    return ticket;
  }

  accepted(ticket: SendTicket, now: number): void {
    this.#answered();
    const observer = this.#observer;
    // While a trial of 503s is under way the window holds where its cuts put it: grown back, it would make the
    // trial's answers look as if the cuts had not helped. (A 429 tests the pace, and clamps the window to what is in
    // flight: held there, a trial at a slow pace took seconds.)
    const signal = this.#trialFrom?.holdWindow === true ? 'other' : 'ok';
    if (observer === undefined) {
      this.limit.onAnswer(ticket, now, signal);
      this.pacer.onAccepted(now, ticket);
      this.breaker.onAccepted(now);
    } else {
      const limitWas = this.limit.limit;
      const breakerWas = this.breaker.state;
      // The answers to the requests sent after the first 429 set the pace they tell (Pacer's cohort): only then is the
      // pace looked at, not on every answer.
      const learning = this.pacer.learningRate;
      const rateWas = learning ? this.pacer.rate(now) : undefined;
      this.limit.onAnswer(ticket, now, signal);
      this.pacer.onAccepted(now, ticket);
      this.breaker.onAccepted(now);
      if (this.limit.limit !== limitWas) observer({ type: 'limit', limit: this.limit.limit, previous: limitWas, reason: 'ok' });
      const rate = learning ? this.pacer.rate(now) : rateWas;
      if (rate !== rateWas) observer({ type: 'pace', rate, previous: rateWas, reason: 'throttled' });
      if (this.breaker.state !== breakerWas) observer({ type: 'breaker', state: this.breaker.state, previous: breakerWas });
    }
    this.#filter.accepted(ticket.seq, now);
    this.#endTrial(now);
  }

  /** A failed attempt; `retryAfterMs` is the service's Retry-After, when it sent one. */
  failed(ticket: SendTicket, now: number, kind: FailureKind, error: unknown, retryAfterMs: number | undefined): void {
    this.#answered();
    const pushback = kind === 'throttled' || kind === 'overloaded';
    const asked = retryAfterMs !== undefined;
    if (pushback && asked) this.#askedToWait = true;
    const reading = pushback ? this.#filter.pushback(ticket.seq, now, this.#latestSeq, asked) : undefined;
    if (reading === 'trial') this.#startTrial(now, kind === 'overloaded');
    const { holdLimit, holdPace } = reading === 'load' && !asked ? this.#cutFarEnough(now) : NO_HOLD;
    const signal = reading === 'noise' || holdLimit ? 'other' : kind === 'overloaded' || kind === 'timeout' ? 'overloaded' : kind === 'throttled' ? 'throttled' : 'other';
    const observer = this.#observer;
    const limitWas = observer === undefined ? 0 : this.limit.limit;
    this.limit.onAnswer(ticket, now, signal);
    if (observer !== undefined && this.limit.limit !== limitWas) observer({ type: 'limit', limit: this.limit.limit, previous: limitWas, reason: signal });
    if (pushback) {
      this.pushback[kind]++;
      if (reading === 'noise' || holdPace) {
        // Retried like any pushback, but the pace stays: slowing down was tried and did not lower it.
      } else if (observer === undefined) this.pacer.onPushback(now, ticket.seq, this.#latestSeq, kind === 'throttled', retryAfterMs, ticket.sentAt);
      else this.#observedPushback(observer, ticket, now, kind, retryAfterMs);
    } else if (kind === 'timeout') this.pushback.timeouts++;
    else if (kind === 'unreachable') this.pushback.unreachable++;
    const breakerWas = this.breaker.state;
    this.breaker.onFailure(now, ticket.seq, kind, error);
    if (observer !== undefined && this.breaker.state !== breakerWas) observer({ type: 'breaker', state: this.breaker.state, previous: breakerWas });
    // The pace a trial may halve is the one its first cut set (a run not paced before has none to halve).
    if (reading === 'trial' && this.#trialFrom !== undefined) this.#trialFrom.rate = this.pacer.rate(now);
    if (pushback) this.#endTrial(now);
  }

  /**
   * A trial cuts to half the window and half the pace it began with, no further: noise would otherwise take both
   * down to one for the whole trial (a hundred answers at a window of one or two is seconds), and a real overload
   * shows already at half. A service that accepts nothing is still held.
   */
  #cutFarEnough(now: number): { holdLimit: boolean; holdPace: boolean } {
    const from = this.#trialFrom;
    if (from === undefined) return NO_HOLD;
    const rate = this.pacer.rate(now);
    return {
      holdLimit: this.limit.limit <= from.limit / 2,
      holdPace: rate !== undefined && from.rate !== undefined && rate <= from.rate / 2 && !this.pacer.acceptsNothing(now),
    };
  }

  #startTrial(now: number, holdWindow: boolean): void {
    this.#trialFrom = { limit: this.limit.limit, rate: this.pacer.rate(now), holdWindow };
    // After a trial that did not help, the next one is judged with it: both are undone from where the first began.
    if (this.#undo.length > 0) return;
    const limit = this.limit.checkpoint?.();
    this.#undo = limit === undefined ? [this.pacer.checkpoint()] : [limit, this.pacer.checkpoint()];
  }

  /** A trial just judged: its cuts are undone when they did not lower the share of pushback. */
  #endTrial(now: number): void {
    const verdict = this.#filter.takeVerdict();
    if (verdict === undefined) return;
    this.#trialFrom = undefined;
    if (verdict === 'again') return;
    const undo = this.#undo;
    this.#undo = [];
    if (verdict === 'keep') return;
    const observer = this.#observer;
    const limitWas = this.limit.limit;
    const rateWas = observer === undefined ? undefined : this.pacer.rate(now);
    for (const put of undo) put();
    // Noise from a service that never asked for a wait: the pace learned before the trials was learned from it too.
    if (!this.#askedToWait) this.pacer.forget();
    if (observer === undefined) return;
    if (this.limit.limit !== limitWas) observer({ type: 'limit', limit: this.limit.limit, previous: limitWas, reason: 'noise' });
    const rate = this.pacer.rate(now);
    if (rate !== rateWas) observer({ type: 'pace', rate, previous: rateWas, reason: 'noise' });
  }

  /** Pushback with an observer: it is told when the pace was cut or sending held. */
  #observedPushback(observer: EngineObserver, ticket: SendTicket, now: number, kind: 'throttled' | 'overloaded', retryAfterMs: number | undefined): void {
    const rateWas = this.pacer.rate(now);
    const nextWas = this.pacer.nextSendAt(now);
    this.pacer.onPushback(now, ticket.seq, this.#latestSeq, kind === 'throttled', retryAfterMs, ticket.sentAt);
    const rate = this.pacer.rate(now);
    const next = this.pacer.nextSendAt(now);
    // A cut changes the rate; a hold (a service that accepts nothing wants a break) only pushes the next send back.
    const held = rate === rateWas && next > nextWas;
    if (rate !== rateWas || held) observer({ type: 'pace', rate, previous: rateWas, reason: kind, ...(held ? { holdMs: Math.round(next - now) } : {}) });
  }

  #answered(): void {
    this.#inFlight--;
    const { limit } = this.limit;
    if (limit > this.#peakLimit) this.#peakLimit = limit;
  }
}
