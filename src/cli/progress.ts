import type { Ora } from 'ora';
import type { ReadProgress } from '../catalog/types.js';
import type { RowOutcome } from '../publish/outcome.js';
import { err, isInteractive, paint } from './output.js';
import { count, duration } from '../report/numbers.js';
import { DROP_ORDER, fitFields, type ProgressField } from './progress-fit.js';

// Where the CLI has long found them; they live with the renderers of results now.
export { count, duration };

/** `spinner`: an ora line on a terminal; `plain`: a line every few seconds (CI, pipes); `off`: --quiet. */
export type ProgressMode = 'spinner' | 'plain' | 'off';

/**
 * The mode for stderr: a spinner only on an interactive terminal that reports its width (a pseudo-terminal of
 * width 0 would make every redraw erase "lines" without end).
 */
export function progressMode(quiet: boolean): ProgressMode {
  if (quiet) return 'off';
  return isInteractive() && (process.stderr.columns ?? 0) > 0 ? 'spinner' : 'plain';
}

export interface ProgressOptions {
  mode: ProgressMode;
  /** How far reading has got, for a byte-based percent when the row total is unknown. */
  readProgress: () => ReadProgress;
  /** Rows read so far (ahead of the rows done by what the engine holds), to scale the byte-based percent. */
  rowsRead?: () => number;
  /** Rows expected, when known in advance. */
  total?: number;
  /**
   * Rows expected to be skipped in no time (already published for `--resume`, unchanged for `--changed-only`): the
   * ETA counts them as free instead of at the pace of the rows sent.
   */
  expectedSkips?: number;
  /** The run's flow now: requests in flight and their limit, the pace, and the service's pushback so far. */
  flow?: () => { inFlight: number; window: number; pace: number | undefined; throttled: number; overloaded: number };
  /** Between plain lines. Default 5,000 ms. */
  plainEveryMs?: number;
  now?: () => number;
}

/**
 * Live counts of a run, drawn on stderr. `tick` is called once per row when it settles (the engine's `onSettled`,
 * not the in-order release a retried row holds back) and only counts.
 */
export class ProgressDisplay {
  readonly #options: ProgressOptions;
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
  #spinner: Ora | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  private constructor(options: ProgressOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#started = this.#now();
    this.#total = options.total;
  }

  /** The rows expected, once known (a count of a local file finishes after the run has started). */
  setTotal(total: number | undefined): void {
    this.#total = total;
  }

  /** Start drawing; ora is loaded only when a spinner is wanted. */
  static async start(options: ProgressOptions): Promise<ProgressDisplay> {
    const display = new ProgressDisplay(options);
    if (options.mode === 'spinner') {
      const { default: ora } = await import('ora');
      // discardStdin off: Ctrl-C must reach our SIGINT handler as a signal.
      display.#spinner = ora({ text: 'starting', stream: process.stderr, discardStdin: false }).start();
      display.#timer = setInterval(() => display.#spinner && (display.#spinner.text = display.line()), 200);
    } else if (options.mode === 'plain') {
      display.#timer = setInterval(() => err(display.line()), options.plainEveryMs ?? 5_000);
    }
    display.#timer?.unref();
    return display;
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

  /** Print a line above the spinner without garbling it. */
  note(line: string): void {
    if (this.#spinner === undefined) {
      err(line);
      return;
    }
    this.#spinner.clear();
    err(line);
    this.#spinner.render();
  }

  /** Stop drawing and clear the spinner line, so the summary starts on a clean line. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#spinner?.stop();
    this.#spinner = undefined;
  }

  /** One line: done/total or done, percent, rows/s, failures, the flow and ETA, fitted to the terminal's width. */
  line(): string {
    const elapsedMs = Math.max(1, this.#now() - this.#started);
    const rate = (this.#done / elapsedMs) * 1000;
    const total = this.#total;
    let fraction: number | undefined;
    let head: string;
    if (total !== undefined && total > 0) {
      // The total of a local file is a line count: an estimate, so the percent stays below 100 until the end.
      fraction = Math.min(0.99, this.#done / total);
      head = `${count(this.#done)}/${count(total)} rows`;
    } else {
      const read = this.#options.readProgress();
      if (read.totalBytes !== undefined && read.totalBytes > 0) {
        // Reading runs ahead of the rows done (the engine holds thousands); scale the bytes by the rows done of those read.
        const rowsRead = this.#options.rowsRead?.() ?? this.#done;
        fraction = Math.min(1, (read.bytesRead / read.totalBytes) * (rowsRead > 0 ? Math.min(1, this.#done / rowsRead) : 0));
      }
      head = `${count(this.#done)} rows`;
    }
    const parts: ProgressField[] = [{ text: head, drop: DROP_ORDER.count }];
    const add = (text: string, drop: number): number => parts.push({ text, drop });
    if (fraction !== undefined) add(`${Math.floor(fraction * 100)}%`, DROP_ORDER.percent);
    add(`${count(Math.round(rate))} rows/s`, DROP_ORDER.rate);
    if (this.#failed > 0) add(paint.red(`${count(this.#failed)} failed`), DROP_ORDER.failed);
    if (this.#invalid > 0) add(paint.yellow(`${count(this.#invalid)} invalid`), DROP_ORDER.invalid);
    const flow = this.#options.flow?.();
    if (flow !== undefined) {
      add(`${count(flow.inFlight)}/${count(flow.window)} in flight`, DROP_ORDER.inFlight);
      if (flow.pace !== undefined) add(`paced ${count(Math.round(flow.pace))}/s`, DROP_ORDER.pace);
      if (flow.throttled + flow.overloaded > 0) add(paint.dim(`busy: ${count(flow.throttled)} throttled, ${count(flow.overloaded)} overloaded`), DROP_ORDER.busy);
    }
    const eta = fraction !== undefined && fraction > 0 && fraction < 1 ? this.#eta(fraction) : undefined;
    if (eta !== undefined) add(`ETA ${duration(eta)}`, DROP_ORDER.eta);
    // One terminal line: a wrapped one makes ora redraw two. The spinner and its space take 2 columns, the last is left free.
    const columns = process.stderr.columns;
    return fitFields(parts, columns === undefined || columns <= 0 ? undefined : this.#options.mode === 'spinner' ? columns - 3 : columns - 1);
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
