import { AcceptedRate } from './accepted-rate.js';
import { ThrottledCohort, type SentRequest } from './throttled-cohort.js';

/** Options of a {@link Pacer}. */
export interface PacerOptions {
  /** The user's ceiling in requests per second (`--rate`); the learned pace never exceeds it. */
  ceiling?: number;
  /** After a 429 the pace drops to this share of the rate the service was accepting. Default 0.9. */
  backoff?: number;
  /** CUBIC's scale: how fast the pace grows back, in requests/s per s^3. Default 0.4 (the AWS SDKs' value). */
  cubic?: number;
  /** The longest run-wide hold for a Retry-After, in ms (longer asks fail the row instead). Default 60,000. */
  maxHoldMs?: number;
}

/** The slowest pace the run learns: a probe a second keeps a throttling service from looking dead. */
const MIN_RATE = 1;

/**
 * The run's send rate, learned from 429s (after the AWS SDKs' adaptive retry mode, which is CUBIC applied to a
 * rate): no pace at all until the service throttles; then, on each fresh 429 (one for a request sent after the
 * last cut), the pace drops to `backoff` x the rate the service was accepting lately (its last 200 ms, or enough
 * answers to tell), and grows
 * back along a cubic curve: quickly at first, flat near the rate that was throttled, then probing above it. So
 * after the first burst the run sends just under what the service accepts, and few requests are rejected.
 *
 * Pushback (a 429, or a 503) when nothing at all was accepted in the last second is a service that wants a break,
 * not a slower pace: every send is held for its Retry-After (1 s when it names none, doubling while it goes on), so
 * a service that sheds everything is not hammered by requests that fail at once; one that accepted something since
 * the last hold gets a pace instead (a strict limiter, whose 429s come before the one answer it lets through).
 *
 * Sends are spaced by GCRA (a token bucket: a burst of a tenth of a second under the user's ceiling, a hundredth
 * under a learned pace), whose interval follows the pace as it changes; a cut leaves no credit behind. Pure: the caller passes monotonic milliseconds.
 */
export class Pacer {
  readonly #ceiling: number | undefined;
  readonly #backoff: number;
  readonly #cubic: number;
  readonly #maxHoldMs: number;
  readonly #accepted = new AcceptedRate();
  /** The rate at the last cut (CUBIC's W_max), and when it was cut. */
  #maxRate: number | undefined;
  #cutAt = 0;
  #cutAtSeq = 0;
  /** GCRA's theoretical arrival time of the next request. */
  #tat = -Infinity;
  /**
   * When the next request may leave, fixed when the last one left: the pace moves continuously, and a time
   * recomputed at each look would creep ahead of the timer that waits for it.
   */
  #nextAt = -Infinity;
  #holdUntil = 0;
  /** When the last hold began, and the last answer was accepted. */
  #heldAt = -Infinity;
  #lastAcceptedAt = -Infinity;
  #holdMs = 0;
  /**
   * A throttling episode: 429s no more than 2 s apart. What is accepted during one is what the service lets through
   * while it throttles (its rate), not a burst it allowed before.
   */
  #episode: { since: number; lastAt: number; accepted: number } | undefined;
  /** The requests sent blind after the run's first 429, whose answers tell the service's rate (see ThrottledCohort). */
  #cohort: ThrottledCohort | undefined;
  /**
   * No request leaves until the cohort tells the rate, or until then: a start-up that overshot a token bucket would
   * otherwise send on at the burst's rate for another round trip, nearly all of it answered 429.
   */
  #measureUntil = 0;
  /** The latest accepted latencies, in ms: how long a cohort's answers take. */
  readonly #latencies: number[] = [];
  #latencyCount = 0;

  constructor(options: PacerOptions = {}) {
    const { ceiling } = options;
    if (ceiling !== undefined && !(ceiling > 0 && Number.isFinite(ceiling))) throw new RangeError(`rate must be a number > 0, got ${ceiling}`);
    this.#ceiling = ceiling;
    this.#backoff = options.backoff ?? 0.9;
    this.#cubic = options.cubic ?? 0.4;
    this.#maxHoldMs = options.maxHoldMs ?? 60_000;
  }

  /** The pace now in requests per second, or undefined while nothing limits it. */
  rate(now: number): number | undefined {
    const learned = this.#learned(now);
    if (learned === undefined) return this.#ceiling;
    return this.#ceiling === undefined ? learned : Math.min(this.#ceiling, learned);
  }

  /** A cohort is being answered: an accepted answer may yet set the pace (see ThrottledCohort). */
  get learningRate(): boolean {
    return this.#cohort !== undefined;
  }

  /** The earliest time the next request may leave (`now` when it may leave at once). */
  nextSendAt(now: number): number {
    return Math.max(now, this.#nextAt, this.#holdUntil, this.#measureUntil);
  }

  /** A request leaves now. */
  onSend(now: number): void {
    const rate = this.rate(now);
    if (rate === undefined) return;
    this.#tat = Math.max(this.#tat, now) + 1000 / rate;
    this.#nextAt = this.#tat - this.#burstMs(now, rate);
  }

  /**
   * GCRA's burst tolerance: a tenth of a second's worth for the user's ceiling; a learned pace allows a hundredth,
   * since its whole point is not to outrun the service.
   */
  #burstMs(now: number, rate: number): number {
    const learned = this.#learned(now);
    const share = learned !== undefined && (this.#ceiling === undefined || learned < this.#ceiling) ? 0.01 : 0.1;
    return Math.max(0, rate * share - 1) * (1000 / rate);
  }

  /** Nothing accepted in the last second, nor since the last hold began: a pushback now holds every send. */
  acceptsNothing(now: number): boolean {
    return this.#accepted.perSecond(now) === 0 && !(this.#lastAcceptedAt > this.#heldAt);
  }

  /** No pace at all, as before the first 429: every pace learned so far was learned from noise. */
  forget(): void {
    this.#maxRate = undefined;
    this.#tat = -Infinity;
    this.#nextAt = -Infinity;
  }

  /** The pace learned now, as a function that puts it back (a cut that did not help is undone). */
  checkpoint(): () => void {
    const maxRate = this.#maxRate;
    const cutAt = this.#cutAt;
    return () => {
      this.#maxRate = maxRate;
      this.#cutAt = cutAt;
      this.#tat = -Infinity;
      this.#nextAt = -Infinity;
    };
  }

  /** An accepted answer; `sent` (the request's place and send time) lets the first throttling learn the rate. */
  onAccepted(now: number, sent?: SentRequest): void {
    this.#accepted.add(now);
    this.#lastAcceptedAt = now;
    this.#holdMs = 0;
    if (this.#episode !== undefined) this.#episode.accepted++;
    if (sent === undefined) return;
    ThrottledCohort.noteLatency(this.#latencies, this.#latencyCount++, now - sent.sentAt);
    if (this.#cohort === undefined) return;
    this.#cohort.note(sent, true);
    this.#judgeCohort(now);
  }

  /** The cohort's rate, once it is known, sets the pace: as a cut when sending waited for it, else only lower. */
  #judgeCohort(now: number): void {
    const rate = this.#cohort?.rate();
    if (rate === undefined) return;
    const waited = now < this.#measureUntil;
    this.#cohort = undefined;
    this.#measureUntil = 0;
    if (this.#maxRate === undefined || now < this.#holdUntil) return;
    if (waited || rate < this.#maxRate) this.#cutTo(now, Math.max(MIN_RATE, rate));
  }

  /**
   * A 429 (`throttled`) or 503 for the request sent as `seq`; `latestSeq` is the last request sent so far, so the
   * answers to requests already on their way when the pace was cut do not cut it again. Only a 429 sets the pace.
   * `sentAt`, when the request left, lets the run's first throttling learn the rate from what it sent blind.
   */
  onPushback(now: number, seq: number, latestSeq: number, throttled: boolean, retryAfterMs: number | undefined, sentAt?: number): void {
    if (throttled) this.#noteEpisode(now);
    if (sentAt !== undefined && this.#cohort !== undefined) {
      this.#cohort.note({ seq, sentAt }, false);
      this.#judgeCohort(now);
    }
    if (seq <= this.#cutAtSeq) return;
    const accepted = this.#accepted.perSecond(now);
    // Nothing accepted lately: a service that wants a break. Not when it accepted something since the last break
    // began: a strict limiter (no burst) answers its 429s before the one request of a burst it lets through, so each
    // break would end in the same burst and the same 429s (one row a second); it gets a pace instead.
    if (this.acceptsNothing(now)) {
      this.#heldAt = now;
      this.#cutAtSeq = latestSeq;
      this.#holdMs = retryAfterMs ?? Math.min(30_000, this.#holdMs === 0 ? 1000 : this.#holdMs * 2);
      this.#holdUntil = Math.max(this.#holdUntil, now + Math.min(this.#holdMs, this.#maxHoldMs));
      return;
    }
    if (!throttled) return;
    this.#cutAtSeq = latestSeq;
    // What the service accepts now: a burst it allowed a moment ago must not set the pace.
    const recent = this.#acceptedWhileThrottled(now) ?? this.#accepted.recentPerSecond(now);
    const current = this.#learned(now);
    if (current === undefined && sentAt !== undefined) this.#beginCohort({ seq, sentAt }, latestSeq, now);
    this.#cutTo(now, Math.max(MIN_RATE, Math.min(current ?? Infinity, recent > 0 ? recent : accepted)));
  }

  /** The pace drops to `backoff` x `rate` (CUBIC's W_max) and grows back from now. */
  #cutTo(now: number, rate: number): void {
    this.#maxRate = rate;
    this.#cutAt = now;
    // No credit saved under the old pace: the next request leaves one interval of the new pace from now.
    const interval = 1000 / (this.rate(now) ?? Infinity);
    this.#tat = Math.max(this.#tat, now + interval);
    this.#nextAt = Math.max(this.#nextAt, now + interval);
  }

  /** Unpaced until now, the run learns the rate from what it sent since `first` left, and waits for it. */
  #beginCohort(first: SentRequest, latestSeq: number, now: number): void {
    this.#cohort = ThrottledCohort.begin(first, latestSeq, now);
    if (this.#cohort !== undefined) this.#measureUntil = now + ThrottledCohort.waitMs(this.#latencies);
  }

  #noteEpisode(now: number): void {
    const episode = this.#episode;
    if (episode === undefined || now - episode.lastAt > 2000) this.#episode = { since: now, lastAt: now, accepted: 0 };
    else episode.lastAt = now;
  }

  /** Requests per second accepted since the throttling began, once there is enough of it to tell. */
  #acceptedWhileThrottled(now: number): number | undefined {
    const episode = this.#episode;
    if (episode === undefined) return undefined;
    const elapsed = now - episode.since;
    return episode.accepted >= 10 && elapsed >= 50 ? (episode.accepted * 1000) / elapsed : undefined;
  }

  /**
   * W(t) = C (t - K)^3 + W_max, with K chosen so that W(0) = backoff x W_max; never more than twice what is accepted
   * (plus one a second).
   */
  #learned(now: number): number | undefined {
    const max = this.#maxRate;
    if (max === undefined) return undefined;
    const k = Math.cbrt((max * (1 - this.#backoff)) / this.#cubic);
    const t = (now - this.#cutAt) / 1000;
    const cubic = this.#cubic * (t - k) ** 3 + max;
    // One more than was counted: at a pace of one a second the last second may hold none, and the pace must still grow.
    const used = 2 * (this.#accepted.perSecond(now) + MIN_RATE);
    return Math.max(MIN_RATE, Math.min(cubic, Math.max(used, max * this.#backoff)));
  }
}

