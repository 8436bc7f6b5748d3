/** Answers the recent share of pushback is measured over. */
const WINDOW = 200;
/** Answers to requests sent after a cut that judge whether the cut helped... */
const PROBE_ANSWERS = 100;
/** ...or fewer, once the trial has lasted this long (a run cut to a few requests a second would wait too long). */
const PROBE_MIN_ANSWERS = 30;
const PROBE_MS = 2000;
/**
 * A trial that has seen no pushback goes on until the share it began with would have shown this many (or for
 * {@link PROBE_MAX_MS}): none in 30 answers at a share of 5 % is one chance in five, and a trial kept by chance left a
 * noisy run at its cut pace for many seconds.
 */
const PROBE_EXPECTED = 3;
const PROBE_MAX_MS = 10_000;
/** Answers to requests on their way at a cut that tell the share it answered; with fewer, the recent share does. */
const MIN_BEFORE = 20;
/** A share of pushback above this is load, whatever slowing down does to it. */
const MAX_FLOOR = 0.25;

/** What one pushback answer (a 429 or 503) means for the run's pace. */
export type PushbackReading =
  /** Load: slow down. */
  | 'load'
  /** Load, and the first cut of a new trial: keep what the controls were before it, to undo it if it does not help. */
  | 'trial'
  /** The share the service pushes back whatever the pace: retry the row, keep the pace. */
  | 'noise';

/**
 * How a trial ended: `keep` its cuts (they lowered the share of pushback), `undo` them (two trials in a row did not),
 * or try `again` (one did not: a run still slowing down to a rate limit looks the same for a moment).
 */
export type TrialVerdict = 'undo' | 'keep' | 'again';

/**
 * Tells pushback that slowing down cures from pushback that it does not.
 *
 * A service may answer a share of its requests 429 or 503 whatever the pace: a flaky gateway, a per-item limit, a
 * sandbox's `--fail-rate`. Read as load, each of those cut the window and the pace again, and a service that failed
 * one request in a hundred took a run down to a few rows a second. So every cut is a trial: the share of pushback
 * among the answers to requests sent after it (for 503s, while the window holds where the cut put it: FlowControl)
 * is compared with the share among those already on their way. A rate limit or a full queue pushes back less once
 * the run slows down; noise does not. When two trials in a row did not help (one alone may be a run still slowing down to a limit),
 * their cuts are undone, and the share left becomes the floor: pushback is load again only once it rises clearly
 * above it (twice it, plus 1 %).
 *
 * Always load: pushback with a Retry-After (the service said how much slower), and a share above a quarter of the
 * answers. One isolated pushback among the last 200 answers is noise from the start.
 */
export class PushbackFilter {
  /** 1 for a pushback, 0 for an accepted answer: the last {@link WINDOW} answers. */
  readonly #ring = new Uint8Array(WINDOW);
  #at = 0;
  #filled = 0;
  #pushbacks = 0;
  #floor = 0;
  /**
   * The trial under way: the answers to requests sent before its cut (already on their way: the share the cut
   * answered) and after it, each with the pushback among them.
   */
  #trial: { afterSeq: number; startedAt: number; share: number; sharePushbacks: number; before: number; beforePushbacks: number; answers: number; pushbacks: number } | undefined;
  #verdict: TrialVerdict | undefined;
  /** Trials in a row whose cuts did not help. */
  #failedTrials = 0;

  accepted(seq: number, now: number): void {
    this.#note(0);
    this.#judge(seq, now, false);
  }

  /**
   * A pushback (a 429 or a 503) to the request sent as `seq`; `latestSeq` is the last request sent so far. One that
   * `asked` for a wait (a Retry-After) is load: the service said how much slower it wants it.
   */
  pushback(seq: number, now: number, latestSeq: number, asked: boolean): PushbackReading {
    this.#note(1);
    const share = this.#pushbacks / this.#filled;
    let reading: PushbackReading;
    if (this.#trial !== undefined || asked) reading = 'load';
    // After a trial that did not help, the next pushback starts the second one: read as noise, it left the first
    // one's cuts in place for the rest of the run (a noisy run held at its cut pace for seconds).
    else if (this.#failedTrials === 0 && this.#isNoise(share)) reading = 'noise';
    else {
      // The pushback that starts a trial is in neither count: it would make a few answers on their way look like a storm.
      this.#trial = { afterSeq: latestSeq, startedAt: now, share, sharePushbacks: this.#pushbacks, before: 0, beforePushbacks: 0, answers: 0, pushbacks: 0 };
      return 'trial';
    }
    this.#judge(seq, now, true);
    return reading;
  }

  /** The verdict of a trial that has just ended, once. */
  takeVerdict(): TrialVerdict | undefined {
    const verdict = this.#verdict;
    this.#verdict = undefined;
    return verdict;
  }

  #isNoise(share: number): boolean {
    if (share > MAX_FLOOR) return false;
    if (this.#floor > 0) return share <= this.#floor * 2 + 0.01;
    return this.#pushbacks <= 1 && this.#filled >= WINDOW / 2;
  }

  #note(bit: 0 | 1): void {
    if (this.#filled === WINDOW) this.#pushbacks -= this.#ring[this.#at] ?? 0;
    else this.#filled++;
    this.#ring[this.#at] = bit;
    this.#pushbacks += bit;
    this.#at = (this.#at + 1) % WINDOW;
  }

  #judge(seq: number, now: number, pushback: boolean): void {
    const trial = this.#trial;
    if (trial === undefined) return;
    if (seq <= trial.afterSeq) {
      trial.before++;
      if (pushback) trial.beforePushbacks++;
      return;
    }
    trial.answers++;
    if (pushback) trial.pushbacks++;
    if (trial.answers < PROBE_ANSWERS && (trial.answers < PROBE_MIN_ANSWERS || now - trial.startedAt < PROBE_MS)) return;
    const after = trial.pushbacks / trial.answers;
    // Too few answers on their way to tell a share: the share of the last answers when the trial began.
    const measured = trial.before >= MIN_BEFORE;
    const before = measured ? trial.beforePushbacks / trial.before : trial.share;
    const beforeCount = measured ? trial.beforePushbacks : trial.sharePushbacks;
    // (The recent share counts the pushback that began the trial: at least one in 200, so at most 600 answers.)
    if (trial.pushbacks === 0 && trial.answers * Math.max(before, trial.share) < PROBE_EXPECTED && now - trial.startedAt < PROBE_MAX_MS) return;
    this.#trial = undefined;
    // A few pushbacks either side are chance: a cut helped when a clear share before fell to a third or less after.
    const helped = beforeCount >= 4 && after <= before / 3;
    if (!helped && after > 0 && after <= MAX_FLOOR) {
      this.#failedTrials++;
      if (this.#failedTrials < 2) {
        this.#verdict = 'again';
        return;
      }
      this.#failedTrials = 0;
      // The larger of two readings of the same noise: the trial's answers and the last 200.
      this.#floor = Math.min(MAX_FLOOR, Math.max(after, this.#pushbacks / this.#filled));
      this.#verdict = 'undo';
    } else {
      this.#failedTrials = 0;
      // A cut that helped: the pushback was load, and the floor, if any, was set too high. (None after, from a few
      // before, tells nothing: the cut stays, the floor too.)
      if (helped) this.#floor /= 2;
      this.#verdict = 'keep';
    }
  }
}
