import type { ReadProgress } from '../catalog/types.js';
import type { RowOutcome } from '../publish/outcome.js';

export interface RunProgressOptions {
  /** How far reading has got, for a byte-based fraction when the row total is unknown. */
  readProgress: () => ReadProgress;
  /** Rows read so far (ahead of the rows done by what the engine holds), to scale the byte-based fraction. */
  rowsRead?: () => number;
  /** Rows expected, when known in advance. */
  total?: number;
  /**
   * Rows expected to be skipped in no time (already published for `resume`, unchanged for `changedOnly`): the ETA
   * counts them as free instead of at the pace of the rows sent.
   */
  expectedSkips?: number;
  now?: () => number;
}

/** How far a run has got, now. */
export interface ProgressFigures {
  done: number;
  /** The rows expected, when known (a line count: an estimate). */
  total: number | undefined;
  /** From 0 to 1, when it can be told (below 1 until the end when it comes from an estimate). */
  fraction: number | undefined;
  /** Rows done per second since the start. */
  rate: number;
  failed: number;
  invalid: number;
  /** Milliseconds left, when they can be told. */
  etaMs: number | undefined;
}

/**
 * The progress of a run, counted as each row settles (the engine's `onSettled`, not the in-order release a retried
 * row holds back): rows done, a fraction, a rate and an ETA. Draws nothing; the CLI's progress line reads it.
 */
export class RunProgress {
  readonly #options: RunProgressOptions;
  readonly #now: () => number;
  readonly #started: number;
  #done = 0;
  /** Rows that cost a request or a check (not skipped, not left unsent), and when the first of them finished. */
  #worked = 0;
  #firstWorkAt: number | undefined;
  #skipped = 0;
  #failed = 0;
  #invalid = 0;
  #total: number | undefined;

  constructor(options: RunProgressOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#started = this.#now();
    this.#total = options.total;
  }

  /** The rows expected, once known (a count of a local file finishes after the run has started). */
  setTotal(total: number | undefined): void {
    this.#total = total;
  }

  tick(outcome: RowOutcome): void {
    this.#done++;
    if (outcome.outcome === 'skipped') this.#skipped++;
    else if (outcome.outcome !== 'not_attempted') {
      this.#worked++;
      this.#firstWorkAt ??= this.#now();
    }
    if (outcome.outcome === 'failed') this.#failed++;
    else if (outcome.outcome === 'invalid') this.#invalid++;
  }

  figures(): ProgressFigures {
    const elapsedMs = Math.max(1, this.#now() - this.#started);
    const total = this.#total;
    const known = total !== undefined && total > 0;
    const fraction = known ? Math.min(0.99, this.#done / total) : this.#readFraction();
    return {
      done: this.#done,
      total: known ? total : undefined,
      fraction,
      rate: (this.#done / elapsedMs) * 1000,
      failed: this.#failed,
      invalid: this.#invalid,
      etaMs: fraction !== undefined && fraction > 0 && fraction < 1 ? this.#eta(fraction) : undefined,
    };
  }

  /** Reading runs ahead of the rows done (the engine holds thousands): the bytes read, scaled by the rows done of those read. */
  #readFraction(): number | undefined {
    const read = this.#options.readProgress();
    if (read.totalBytes === undefined || read.totalBytes <= 0) return undefined;
    const rowsRead = this.#options.rowsRead?.() ?? this.#done;
    return Math.min(1, (read.bytesRead / read.totalBytes) * (rowsRead > 0 ? Math.min(1, this.#done / rowsRead) : 0));
  }

  /**
   * The rows left that need work, at the pace of the rows that needed work so far. Rows skipped in no time (a
   * resumed run's first thousands) count neither in the pace nor, up to the number expected, in the rows left.
   */
  #eta(fraction: number): number | undefined {
    const left = (this.#done * (1 - fraction)) / fraction;
    const skipsLeft = Math.min(left, Math.max(0, (this.#options.expectedSkips ?? 0) - this.#skipped));
    const workLeft = left - skipsLeft;
    if (workLeft <= 0) return 0;
    if (this.#firstWorkAt === undefined || this.#worked === 0) return undefined;
    const workMs = Math.max(1, this.#now() - this.#firstWorkAt);
    // Until a few rows of work have finished, the pace is the run's whole time (start-up included).
    const pace = this.#worked >= 8 ? this.#worked / workMs : this.#worked / Math.max(1, this.#now() - this.#started);
    return workLeft / pace;
  }
}
