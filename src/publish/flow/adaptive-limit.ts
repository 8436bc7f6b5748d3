import type { ConcurrencyLimit, LoadSignal, SendTicket } from './concurrency-limit.js';
import { WindowRates } from './window-rates.js';

/** Options of an {@link AdaptiveLimit}; the defaults suit a service anywhere from 1 ms to a few seconds an answer. */
export interface AdaptiveLimitOptions {
  /** The window slow start begins with: a misconfigured run fails after this many requests, not a burst. Default 4. */
  initial?: number;
  /**
   * The ceiling (`--max-concurrency`): given, the most in flight on any service. Unset, `fastMax`, or on a slower
   * service one request in flight per ms of its fastest answer, up to 2048 (a 2 s service at 1,000 rows/s, memory
   * still bounded).
   */
  max?: number;
  /** Latency may rise to `tolerance` x the no-load latency (plus `slackMs`) before a queue is assumed. Default 1.5. */
  tolerance?: number;
  /** Latency jitter in ms that is never taken for a queue (timers, GC, loopback, JIT warm-up). Default 5. */
  slackMs?: number;
  /** The factor the limit is cut by on overload (503, timeouts). Default 0.7. */
  backoff?: number;
  /** Answers a sample window needs before it is judged. Default 8. */
  minSamples?: number;
  /**
   * Without a `max`, the ceiling on a service whose fastest answer took at most this many ms; on a slower one, one
   * request in flight per ms of it (up to 2048): more in flight only pays where each answer takes long. Default 512.
   */
  fastMax?: number;
}

/** The ceiling the limiter may reach on a slow service when none is given. */
export const AUTO_MAX = 2048;
/** Start-up doubles the window every round trip, or every this many ms of the fastest answer if that is sooner. */
const STARTUP_DOUBLING_MS = 250;
/** Start-up grows by at most this factor per round trip: a slow service that sheds load is sent this many too many. */
const STARTUP_MAX_GAIN = 8;
/**
 * On a service whose fastest answer takes this many ms or more, start-up grows by {@link HIGH_GAIN} a round trip where
 * it would double, from a window of 64: from 4 to 512 in 7 round trips, not 8 (at 100 ms, most of a short run was
 * ramp). A faster service is at its window within a few hundred ms anyway, and its rate limits were overshot more in
 * simulation (5,000/s).
 */
const HIGH_GAIN_MS = 50;
/** BBR's start-up gain, 2 / ln 2: the window the next round trip needs for the answers a second to double each one. */
const HIGH_GAIN = 2 / Math.LN2;
/**
 * The window start-up doubles up to before it grows by {@link HIGH_GAIN}: the first rounds showed headroom, and a
 * service that takes fewer at once is met while doubling, as before. In simulation, growing by 2.89 from 4 overshot a
 * rate limit with a small burst (10 at once) into a Retry-After hold (2,000 rows at 100/s: 21.7-22.8 s instead of
 * 20.0-20.9), and from 16, shards sharing a small service that sheds load (4 on 40 + 10 queued: 0.87 of ideal
 * against 0.91; 12 seeds); from 64, no model lost goodput.
 */
const HIGH_GAIN_FROM = 64;
/** A ticket that remembers the limit it left under: start-up grows only on requests sent with the window in use. */
interface AdaptiveTicket extends SendTicket {
  readonly limitAtSend: number;
  /** The requests in flight, integrated over time, when it left: see {@link AdaptiveLimit.#load}. */
  readonly loadAtSend: number;
}

/**
 * A service whose no-load latency is under this many ms is a fast one. There a window's latency rising is mostly this
 * host's own scheduling (a loaded machine delays single answers by 5-80 ms) rather than a queue at the service, so
 * latency alone does not cut the window below {@link FAST_SERVICE_WINDOW} (pushback and timeouts still do); and
 * with no ceiling given the window stops there: 64 answers per 5 ms are 12,800 a second or more, about what one
 * client core sends, so more in flight buys nothing but CPU (measured: the defaults at 83-140 in flight sent fewer
 * rows a second than a fixed 64 against the bench's fast responder).
 */
const FAST_SERVICE_MS = 5;
/** The requests in flight on a fast service: what a bare client keeps open anyway. */
const FAST_SERVICE_WINDOW = 64;

/**
 * After start-up, a window whose latency is within this many times the no-load latency found no queue at all; windows
 * in a row like it grow the window by more each time, up to {@link CLEAR_GROWTH_MAX} of it.
 */
const CLEAR_LATENCY = 1.25;
const CLEAR_GROWTH_MAX = 0.5;

/** Start-up ends once a window's latency is this many times the no-load latency (less than the cut tolerance). */
const STARTUP_EXIT = 1.25;

/**
 * Past the latency threshold the window still grows while its last step (a tenth, {@link BUYS_LOOKBACK}) gave at least
 * half as much more answers a second ({@link BUYS_SHARE}), and latency stays within {@link BUYS_MAX_LATENCY} x the
 * no-load latency: the window holds where throughput stops growing, not where latency first moves.
 */
const BUYS_LOOKBACK = 1.09;
const BUYS_SHARE = 0.5;
const BUYS_MAX_LATENCY = 3;

/**
 * A start-up window past the threshold goes on doubling, without a hold, while it still buys answers: its
 * answers a ms (its window over its latency) at least this share of what the window grew by since one half its size
 * or less (0.25: twice the window, 1.25 x the answers a ms), as BBR's start-up goes on while each round delivers 25 %
 * more. A queue adds latency in proportion to what it adds in flight, so its answers a ms stay flat; a client or
 * service warming up answers slower and yet more a second. (Measured on the bench's latency-only service: from 100 to
 * 211 in flight, latency went from 110 to 160 ms, 45 % more answers a ms; start-up ended there, and the window took
 * two more seconds to reach 512.)
 */
const STARTUP_BUYS_SHARE = 0.25;

/**
 * A latency-based adaptive concurrency limit, after TCP Vegas, Netflix's Gradient2 and brpc's auto limiter:
 *
 * - **Start-up** from `initial`: the limit doubles per round trip (from 64 x2.89 at 50 ms or more: 4, 7, 14, 28, 56,
 *   154, 444, 512), or every 250 ms of the fastest answer when that is sooner (x8 per round trip at most: a 2 s service
 *   goes 4, 32, about 250, 2,000), until latency rises (past 1.25 x the no-load latency on a service slower than
 *   250 ms), the service pushes back, or the ceiling is
 *   reached. The ceiling is `max` when given; unset, `fastMax` (512), or on a service slower than that many ms, one
 *   request in flight per ms of its fastest answer, up to 2048. Past the cut threshold, a doubling start-up goes on
 *   while the window still buys answers (its answers a ms 25 % more than half the window's), and when it stops buying,
 *   start-up ends without a cut (the next window is judged as any); otherwise the window is held for a round trip
 *   before start-up ends: a queue is still there then, a passing slowdown is not.
 * - Answers are judged in **sample windows** (`minSamples` in slow start, then half the limit), by their mean latency,
 *   so one slow answer of a noisy service does not move the limit. Only answers to requests sent after the last
 *   change count: each window measures the limit it judges.
 * - The **no-load latency** is the lowest window mean seen (plus its standard error). While a window's mean stays
 *   within `tolerance x no-load + slackMs` (less than two standard errors above it: chance is no queue), the limit
 *   grows by a tenth (by one once the service has shed load: its ceiling is near; by more each window in a row that
 *   finds latency within 1.25 x no-load, up to half: the climb back after a passing slowdown); above it, a queue is
 *   building at the service and the limit shrinks in proportion (never by more than half). If three round trips of
 *   cuts (the limit down by 40% or more) do not bring latency down, the queue is not ours (the service got slower for
 *   everyone): the no-load latency is learned again instead of cutting on to 1.
 * - **Overload** (503, 502/504, a timeout) cuts the limit by `backoff`, once per round trip. A **429** ends slow
 *   start without a cut: the pace is the pacer's to learn.
 * - The limit only grows while it is used (at least half of it in flight): a run held back by its pace or by its
 *   input does not inflate it.
 */
export class AdaptiveLimit implements ConcurrencyLimit {
  readonly #max: number;
  readonly #tolerance: number;
  readonly #slackMs: number;
  readonly #backoff: number;
  readonly #minSamples: number;
  readonly #fastMax: number;
  /** A ceiling was given (`--max-concurrency`): it holds on every service. */
  readonly #maxGiven: boolean;
  /** The last request sent with at least half the window in flight: the window was in use up to there. */
  #usedAtSeq = 0;
  #limit: number;
  /** The fastest accepted answer so far, in ms: start-up's gain and the ceiling follow it. */
  #fastestMs = Infinity;
  #slowStart = true;
  /** Start-up holds its window for a round trip: the last window was past the threshold. */
  #startUpHeld = false;
  /** Start-up goes on past the threshold: its window still buys answers. */
  #startUpBuying = false;
  /** The answers a ms of start-up's windows, by the window their requests left under. */
  readonly #startUpRates = new WindowRates();
  /** After an overload the limit probes upwards by one per window, not by a tenth: the ceiling is near. */
  #overloaded = false;
  /** The service has said "slower" (429): its pace is the pacer's, a bigger window buys nothing there. */
  #throttled = false;
  #seq = 0;
  #inFlight = 0;
  /** Answers to requests sent up to here were sent under an older limit. */
  #changedAtSeq = 0;
  #noLoadMs = Infinity;
  /** The limit and mean latency when the current run of latency cuts began, to check that cutting helps. */
  #cutsFrom: { limit: number; meanMs: number; windows: number } | undefined;
  #samples = 0;
  #sumMs = 0;
  #sumSquares = 0;
  /** What the window's requests had in flight beside them while out, summed. */
  #sumLoad = 0;
  /** The requests in flight integrated over time (request-ms), up to `#loadAt`. */
  #loadIntegral = 0;
  #loadAt = 0;
  #peakInFlight = 0;
  /** Windows in a row, after start-up, that grew and found no queue at all: each grows the window by more. */
  #clearRun = 0;
  /** The answers a ms of the windows judged (used ones), one per size. */
  readonly #rates = new WindowRates();

  constructor(options: AdaptiveLimitOptions = {}) {
    this.#max = options.max ?? AUTO_MAX;
    if (!Number.isInteger(this.#max) || this.#max < 1) throw new RangeError(`max concurrency must be a whole number >= 1, got ${this.#max}`);
    this.#limit = Math.min(this.#max, options.initial ?? 4);
    this.#tolerance = options.tolerance ?? 1.5;
    this.#slackMs = options.slackMs ?? 2;
    this.#backoff = options.backoff ?? 0.7;
    this.#minSamples = options.minSamples ?? 8;
    // A ceiling given is the ceiling everywhere: only the one left to the limiter depends on the service's speed.
    this.#fastMax = options.fastMax ?? 512;
    this.#maxGiven = options.max !== undefined;
  }

  get limit(): number {
    return Math.max(1, Math.floor(this.#limit));
  }

  /**
   * In start-up on a slow service (growing faster than doubling), the window the next round trip grows to if every
   * answer counts; else the limit. Connections for it can be opened while this round's answers are awaited.
   */
  get upcoming(): number {
    if (!this.#slowStart || this.#startUpHeld || !Number.isFinite(this.#fastestMs)) return this.limit;
    const gain = this.#startupGain();
    return gain <= 2 ? this.limit : Math.min(this.#ceiling(), Math.floor(this.#limit * gain));
  }

  /** The no-load latency learned so far, in ms (undefined before the first window). */
  get noLoadMs(): number | undefined {
    return Number.isFinite(this.#noLoadMs) ? this.#noLoadMs : undefined;
  }

  get slowStart(): boolean {
    return this.#slowStart;
  }

  checkpoint(): () => void {
    const limit = this.#limit;
    const overloaded = this.#overloaded;
    const throttled = this.#throttled;
    const cutsFrom = this.#cutsFrom;
    return () => {
      this.#limit = limit;
      // The cuts read noise as load: the window finds the service's capacity again, as at the start.
      this.#slowStart = true;
      this.#startUpHeld = false;
      this.#startUpBuying = false;
      this.#overloaded = overloaded;
      this.#throttled = throttled;
      this.#cutsFrom = cutsFrom;
      this.#clearRun = 0;
      this.#changedAtSeq = this.#seq;
      this.#newWindow();
    };
  }

  onSend(now: number): AdaptiveTicket {
    this.#integrateLoad(now);
    this.#inFlight++;
    if (this.#inFlight > this.#peakInFlight) this.#peakInFlight = this.#inFlight;
    if (this.#inFlight >= this.#limit / 2) this.#usedAtSeq = this.#seq + 1;
    return { seq: ++this.#seq, sentAt: now, inFlight: this.#inFlight, limitAtSend: this.#limit, loadAtSend: this.#loadIntegral };
  }

  /**
   * The most in flight allowed now: the `max` given; else a fast service's window, or `fastMax`, or one per ms of the
   * fastest answer when that is more, up to {@link AUTO_MAX}.
   */
  #ceiling(): number {
    if (this.#maxGiven) return this.#max;
    if (this.#noLoadMs < FAST_SERVICE_MS) return FAST_SERVICE_WINDOW;
    return Math.min(AUTO_MAX, Math.max(this.#fastMax, Math.floor(this.#fastestMs)));
  }

  onAnswer(ticket: SendTicket, now: number, signal: LoadSignal): void {
    this.#integrateLoad(now);
    this.#inFlight--;
    if (signal === 'other') return;
    const current = ticket.seq > this.#changedAtSeq;
    if (signal === 'throttled') {
      // The pace is the pacer's to learn; slow start must not pile more requests onto a service that said "slower".
      this.#slowStart = false;
      this.#throttled = true;
      this.#clearRun = 0;
      this.#limit = Math.min(this.#limit, Math.max(1, this.#inFlight + 1));
      return;
    }
    if (signal === 'overloaded') {
      this.#overloaded = true;
      if (current) this.#cut(this.#backoff);
      return;
    }
    const latency = now - ticket.sentAt;
    if (latency < this.#fastestMs) {
      this.#fastestMs = latency;
      this.#limit = Math.min(this.#limit, this.#ceiling());
    }
    if (this.#slowStart) this.#startUp(ticket as AdaptiveTicket);
    if (!current) return;
    this.#samples++;
    this.#sumMs += latency;
    this.#sumSquares += latency * latency;
    this.#sumLoad += this.#load(ticket as AdaptiveTicket, now);
    // In slow start the limit doubles each round trip: small windows catch a queue before it has grown deep.
    if (this.#samples >= (this.#slowStart ? this.#minSamples : Math.max(this.#minSamples, this.limit / 2))) this.#judgeWindow();
  }

  /**
   * Start-up: an accepted answer to a request sent with the window in use adds `step - 1` (the window grows by the
   * step per round trip). The gain is 2 on a service faster than 250 ms, so the window doubles each round trip, and
   * up to 8 on a slower one, so it doubles at least every 250 ms; the step is the gain, or {@link HIGH_GAIN} when that
   * is more on a service of 50 ms or more.
   */
  #startUp(ticket: AdaptiveTicket): void {
    if (this.#startUpHeld) return;
    const gain = this.#startupGain();
    // At a step of 2, in use means half the window as it is now, as before the gain (counting by the window the
    // request left under overshot a fast rate limit in simulation: 5,000/s took 25.9 s instead of 19.3). Above 2, the
    // window was in use while the request was in flight: half of it was when the request left, or a request sent
    // after it found half of it in flight (the rows to fill a window that grew by x8 come from the reader a batch at
    // a time: the first of them leave with little in flight, and not counting them left 2,000 rows at 2 s, one run in
    // three, a fifth round trip). So the first window counts whole once half of it was in flight.
    const step = this.#startupStep(gain);
    const used = step <= 2 ? ticket.inFlight >= this.#limit / 2 : ticket.inFlight >= ticket.limitAtSend / 2 || this.#usedAtSeq > ticket.seq;
    if (used) this.#limit = Math.min(this.#ceiling(), this.#limit + step - 1);
  }

  /** What start-up multiplies the window by in a round trip: the gain, and at least {@link HIGH_GAIN} from 50 ms and 64. */
  #startupStep(gain: number): number {
    return this.#fastestMs >= HIGH_GAIN_MS && this.#limit >= HIGH_GAIN_FROM ? Math.max(HIGH_GAIN, gain) : gain;
  }

  /**
   * Start-up's answer to a window past the threshold: hold the window for a round trip before taking it for a queue.
   * A queue this window built is still there when the window is held; a passing slowdown (a fresh service warming up
   * at its first hundreds of connections) is gone, and start-up goes on growing. A window past it that still buys
   * answers goes on without a hold; once one that bought no longer does, start-up ends there, without a cut: the window
   * after it is judged as after start-up (a queue still there is cut then). True while start-up holds or goes on, or
   * so ends.
   */
  #holdStartUp(queued: boolean, mean: number, load: number): boolean {
    const buys = queued && this.#startUpBuys(mean, load);
    this.#startUpRates.note(load, load, mean);
    if (buys) {
      this.#startUpBuying = true;
      this.#startUpHeld = false;
      this.#newWindow();
      return true;
    }
    if (this.#startUpHeld) {
      this.#startUpHeld = false;
      if (queued) return false;
      this.#newWindow();
      return true;
    }
    if (!queued) return false;
    if (this.#startUpBuying) {
      // A window that bought answers and now does not: start-up is over, the window judged again after it (a queue
      // still there is cut then; a cut by the threshold now took a host still warming up for a queue).
      this.#slowStart = false;
      this.#startUpBuying = false;
      this.#changedAtSeq = this.#seq;
      this.#newWindow();
      return true;
    }
    this.#startUpHeld = true;
    this.#changedAtSeq = this.#seq;
    this.#newWindow();
    return true;
  }

  /**
   * Whether a start-up window past the threshold still buys answers (see {@link STARTUP_BUYS_SHARE}): only while
   * start-up doubles (growing faster, it ends before the threshold), and within 3 x the no-load latency. At the
   * ceiling, where it cannot grow, it only has to answer no fewer a ms than the window half its size: latency that
   * rises there is not of the window's growing.
   */
  #startUpBuys(mean: number, load: number): boolean {
    if (this.#startupGain() > 2 || mean > this.#noLoadMs * BUYS_MAX_LATENCY + this.#slackMs) return false;
    const share = this.#limit >= this.#ceiling() ? 0 : STARTUP_BUYS_SHARE;
    return this.#startUpRates.stillBuys(load, load, mean, 2, share);
  }

  #integrateLoad(now: number): void {
    if (now > this.#loadAt) {
      this.#loadIntegral += this.#inFlight * (now - this.#loadAt);
      this.#loadAt = now;
    }
  }

  /**
   * The requests in flight on average while this one was out: the load it met, whatever the window was when it left
   * (in start-up a request sent early in a round trip meets the whole of the window that round grows to).
   */
  #load(ticket: AdaptiveTicket, now: number): number {
    return now > ticket.sentAt ? (this.#loadIntegral - ticket.loadAtSend) / (now - ticket.sentAt) : this.#inFlight + 1;
  }

  #startupGain(): number {
    return Math.min(STARTUP_MAX_GAIN, Math.max(2, 2 ** (this.#fastestMs / STARTUP_DOUBLING_MS)));
  }

  #judgeWindow(): void {
    const n = this.#samples;
    const mean = this.#sumMs / n;
    // The standard error of the window's mean: a noisy service's windows differ by chance, and chance is no queue.
    const error = Math.sqrt(Math.max(0, this.#sumSquares / n - mean * mean) / n);
    const used = this.#peakInFlight >= this.#limit / 2;
    // The lowest of many noisy means is lower than the service's no-load latency by a few standard errors.
    this.#noLoadMs = Math.min(this.#noLoadMs, mean + error);
    if (this.#limit > this.#ceiling()) {
      this.#limit = this.#ceiling();
      this.#changedAtSeq = this.#seq;
    }
    let threshold = this.#threshold();
    const queued = (): boolean => mean - 2 * error > threshold;
    if (this.#slowStart && this.#holdStartUp(queued(), mean, this.#sumLoad / n)) return;
    const from = this.#cutsFrom;
    if (queued() && from !== undefined && ++from.windows >= 3 && this.#limit <= from.limit * 0.6 && mean > from.meanMs * 0.85) {
      // Three round trips of cuts (time for a queue we built to drain), the limit down by 40% or more, and latency
      // has not moved: the queue is not ours, the service (or this client, warming up) got slower.
      this.#noLoadMs = mean;
      threshold = this.#threshold();
      this.#rates.clear();
    }
    if (queued() && this.#stillBuys(used, mean)) {
      this.#grow(used, mean, false);
      return;
    }
    if (queued()) {
      this.#noteRate(used, mean);
      this.#cutsFrom ??= { limit: this.#limit, meanMs: mean, windows: 0 };
      this.#cut(Math.max(0.5, threshold / mean), this.#noLoadMs < FAST_SERVICE_MS ? Math.min(FAST_SERVICE_WINDOW, this.#ceiling()) : 1);
      return;
    }
    this.#cutsFrom = undefined;
    // Growing faster than doubling, start-up ends at the first sign of a queue, before the cut threshold: the next
    // round would overshoot by the gain. Doubling, it ends at the threshold, as before (measured on a loaded host, an
    // earlier end left a 5-15 ms service's window too small to meet its 100/s rate limit).
    if (this.#slowStart && this.#startupGain() > 2 && mean - 2 * error > this.#noLoadMs * STARTUP_EXIT + this.#slackMs) this.#slowStart = false;
    this.#grow(used, mean, mean <= this.#noLoadMs * CLEAR_LATENCY + this.#slackMs);
  }

  /**
   * After start-up, a used window that found no queue (or one that still buys answers) grows by a tenth, or by one once
   * the service shed load. Windows in a row that found no queue at all grow by more each time (a tenth, a fifth, two
   * fifths, half): a window cut by a passing slowdown (a fresh service warming up) climbs back in a few round trips, not
   * dozens, while one near a queue's knee, whose windows keep finding it, still grows by a tenth.
   */
  #grow(used: boolean, mean: number, clear: boolean): void {
    const ceiling = this.#ceiling();
    this.#noteRate(used, mean);
    if (!this.#slowStart && used && this.#limit < ceiling) {
      this.#clearRun = clear ? this.#clearRun + 1 : 0;
      const share = Math.min(CLEAR_GROWTH_MAX, 0.1 * 2 ** Math.max(0, this.#clearRun - 1));
      this.#limit = Math.min(ceiling, this.#limit + (this.#overloaded ? 1 : Math.max(1, this.#limit * share)));
      this.#changedAtSeq = this.#seq;
    }
    this.#newWindow();
  }

  /** After start-up (whose windows grow as they are measured), a used window's answers a ms, by its size. */
  #noteRate(used: boolean, mean: number): void {
    if (used && !this.#slowStart) this.#rates.note(this.#limit, Math.min(this.#peakInFlight, this.#limit), mean);
  }

  /**
   * A window past the latency threshold whose extra requests in flight still bought answers (see WindowRates): never
   * in start-up, on a fast service (this host's noise), once the service shed load or throttled, or past 3 x the no-load
   * latency.
   */
  #stillBuys(used: boolean, mean: number): boolean {
    if (this.#slowStart || !used || this.#overloaded || this.#throttled || this.#noLoadMs < FAST_SERVICE_MS) return false;
    if (mean > this.#noLoadMs * BUYS_MAX_LATENCY + this.#slackMs) return false;
    return this.#rates.stillBuys(this.#limit, Math.min(this.#peakInFlight, this.#limit), mean, BUYS_LOOKBACK, BUYS_SHARE);
  }

  #threshold(): number {
    return this.#noLoadMs * this.#tolerance + this.#slackMs;
  }

  /** Shrink the window by `factor`, never below `floor` (nor raise it to that floor when it is smaller). */
  #cut(factor: number, floor = 1): void {
    this.#slowStart = false;
    this.#startUpHeld = false;
    this.#clearRun = 0;
    this.#limit = Math.max(Math.min(floor, this.#limit), 1, this.#limit * factor);
    this.#changedAtSeq = this.#seq;
    this.#newWindow();
  }

  #newWindow(): void {
    this.#samples = 0;
    this.#sumMs = 0;
    this.#sumSquares = 0;
    this.#sumLoad = 0;
    this.#peakInFlight = this.#inFlight;
  }
}
