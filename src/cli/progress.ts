import type { Ora } from 'ora';
import type { RowOutcome } from '../publish/outcome.js';
import { err, isInteractive, paint } from './output.js';
import { terminalSafe } from '../printable.js';
import { count, duration } from '../number-text.js';
import { RunProgress, type RunProgressOptions } from '../run/run-progress.js';
import { fitFields, progressFields, type FlowFigures } from '../run/progress-line.js';

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

export interface ProgressOptions extends RunProgressOptions {
  mode: ProgressMode;
  /** The run's flow now: requests in flight and their limit, the pace, and the service's pushback so far. */
  flow?: () => FlowFigures;
  /** Between plain lines. Default 5,000 ms. */
  plainEveryMs?: number;
}

/** A line redrawn on stderr: an ora spinner on a terminal, a plain line every so often otherwise; notes go above it. */
export class LiveLine {
  #spinner: Ora | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Start drawing: `line` is the spinner's text; `plain` writes what plain mode shows each time (a line, or a log event); ora is loaded only for a spinner. */
  async begin(options: { mode: ProgressMode; first: string; line: () => string; plain: () => void; spinnerEveryMs: number; plainEveryMs: number }): Promise<this> {
    if (options.mode === 'spinner') {
      const { default: ora } = await import('ora');
      // discardStdin off: Ctrl-C must reach our SIGINT handler as a signal.
      const spinner = ora({ text: options.first, stream: process.stderr, discardStdin: false }).start();
      this.#spinner = spinner;
      // ora writes to stderr itself, past err(): the text is made safe here.
      this.#timer = setInterval(() => (spinner.text = terminalSafe(options.line(), true)), options.spinnerEveryMs);
    } else if (options.mode === 'plain') {
      this.#timer = setInterval(options.plain, options.plainEveryMs);
    }
    this.#timer?.unref();
    return this;
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

  /** Stop drawing and clear the spinner line, so what follows starts on a clean line. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#spinner?.stop();
    this.#spinner = undefined;
  }
}

/** The live counts of a run (src/run/run-progress.ts), drawn on stderr. */
export class ProgressDisplay extends LiveLine {
  readonly #options: ProgressOptions;
  readonly #progress: RunProgress;

  private constructor(options: ProgressOptions) {
    super();
    this.#options = options;
    this.#progress = new RunProgress(options);
  }

  /** The rows expected, once known (a count of a local file finishes after the run has started). */
  setTotal(total: number | undefined): void {
    this.#progress.setTotal(total);
  }

  /** Start drawing. */
  static async start(options: ProgressOptions): Promise<ProgressDisplay> {
    const display = new ProgressDisplay(options);
    return display.begin({ mode: options.mode, first: 'starting', line: () => display.line(), plain: () => err(display.line()), spinnerEveryMs: 200, plainEveryMs: options.plainEveryMs ?? 5_000 });
  }

  tick(outcome: RowOutcome): void {
    this.#progress.tick(outcome);
  }

  /** One line: done/total or done, percent, rows/s, failures, the flow and ETA, fitted to the terminal's width. */
  line(): string {
    const parts = progressFields(this.#progress.figures(), this.#options.flow?.(), paint);
    // One terminal line: a wrapped one makes ora redraw two. The spinner and its space take 2 columns, the last is left free.
    const columns = process.stderr.columns;
    return fitFields(parts, columns === undefined || columns <= 0 ? undefined : this.#options.mode === 'spinner' ? columns - 3 : columns - 1);
  }
}
