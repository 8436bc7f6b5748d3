import { JournalWriter, type JournalHeader } from '../publish/journal.js';
import { StateWriter } from '../publish/state-file.js';
import { ConfigError } from '../errors.js';
import type { RunTarget } from '../publish/run-target.js';
import type { ListingState } from '../publish/listing-state.js';
import type { RowOutcome } from '../publish/outcome.js';
import { openReport, type ReportWriter, type RunMeta, type RunSummary } from '../report/index.js';

/** What `write` returns when no report is behind. */
const WRITTEN: Promise<void> = Promise.resolve();

/** The first output of a run that could not be written: which, where, and why. */
export interface OutputFailure {
  role: 'report' | 'journal' | 'state file';
  path: string;
  error: Error;
}

/** What {@link RunOutputs.open} opens: every part but `onFailure` may be left out (no report, no journal, no state). */
export interface RunOutputsPlan {
  /** Report paths; the format of each is told by its extension (`.csv`, `.json`, `.ndjson`, `.xml`, `.html`). */
  reports: readonly string[];
  /**
   * The resume journal: appended to, or started over with `fresh`. Its header's target decides which later runs take
   * its rows as published (`runTarget` gives the target the CLI gives the same service, key and marketplace).
   */
  journal?: { path: string; header: JournalHeader; fresh: boolean };
  /**
   * The state of a changed-only run: `state` is the run's `changedOnly` (as loaded), written to `path` as the run
   * goes and put in place when it closes, so that a state that cannot be written stops the sending at once.
   */
  state?: { path: string; target: RunTarget; state: ListingState };
  /** Called once, at the first write that fails, so the run can stop sending. */
  onFailure: (failure: OutputFailure) => void;
}

/**
 * What a publish run writes: its reports, its journal and its changed-only state, as `listings publish` writes them.
 * A write that fails mid-run (a full disk) is not a crash: it is recorded, the run is told to stop sending, the failed
 * report is dropped (a half-written report would read back as complete and wrong), and the journal keeps what
 * reached it. With a journal in the plan, pass `outputs.journal` as the run's `journal`: the engine records each
 * row that reached the service in it.
 *
 * ```ts
 * const stop = new AbortController();
 * const outputs = await RunOutputs.open({ reports: ['run.csv'], onFailure: () => stop.abort() });
 * const run = await publishCatalog('catalog.csv', { sender: client, stop: stop.signal });
 * const counter = new SummaryCounter();
 * try {
 *   for await (const outcome of run) {
 *     counter.add(outcome);
 *     await outputs.write(outcome);
 *   }
 *   const summary = counter.summary(elapsedMs, ['run.csv']);
 *   const verdict = publishVerdict({ end: run.end, summary, outputFailure: outputs.failure });
 *   await outputs.close(summary, { exitCode: verdict.exitCode, why: verdict.why });
 * } finally {
 *   await outputs.abort();
 * }
 * // outputs.failure: the first write that failed, if one did; the verdict the CLI gives once it has closed:
 * // publishVerdict({ end: run.end, summary, outputFailure: outputs.failure }).
 * ```
 */
export class RunOutputs {
  #reports: ReportWriter[];
  #journal: JournalWriter | undefined;
  #state: StateWriter | undefined;
  readonly #written: string[] = [];
  readonly #plan: RunOutputsPlan;
  #failure: OutputFailure | undefined;

  private constructor(plan: RunOutputsPlan, reports: ReportWriter[], journal: JournalWriter | undefined) {
    this.#plan = plan;
    this.#reports = reports;
    this.#journal = journal;
  }

  /**
   * Open every report, the journal and the state, or none: one that cannot be opened closes the others and throws.
   * A state that cannot be written as it was loaded (a full disk) is a failure, told to `onFailure`: nothing is sent.
   */
  static async open(plan: RunOutputsPlan): Promise<RunOutputs> {
    const settled = await Promise.allSettled(plan.reports.map((path) => openReport(path)));
    const reports = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(reports.map((report) => report.abort()));
      throw failed.reason;
    }
    const outputs = new RunOutputs(plan, reports, undefined);
    if (plan.journal !== undefined) {
      const { path, header, fresh } = plan.journal;
      try {
        outputs.#journal = await JournalWriter.open(path, header, { fresh, onError: (error) => outputs.#fail('journal', path, error) });
      } catch (error) {
        await outputs.abort();
        throw error;
      }
    }
    if (plan.state !== undefined) {
      const { path, target, state } = plan.state;
      try {
        outputs.#state = await StateWriter.open(path, state, target, (error) => outputs.#fail('state file', path, error));
      } catch (error) {
        if (error instanceof ConfigError) {
          await outputs.abort();
          throw error;
        }
        outputs.#fail('state file', path, error);
      }
    }
    return outputs;
  }

  /** The journal the engine records finished rows in. */
  get journal(): JournalWriter | undefined {
    return this.#journal;
  }

  /** The reports written whole and put in place by `close`: a report that failed is not among them. */
  get reportsWritten(): readonly string[] {
    return this.#written;
  }

  /** The first write that failed, if one did. */
  get failure(): OutputFailure | undefined {
    return this.#failure;
  }

  /**
   * Add one outcome to every report; resolves when none is behind (backpressure). Most rows find no report behind:
   * they are written without an async call of their own and get the same settled promise.
   */
  write(outcome: RowOutcome): Promise<void> {
    const reports = this.#reports;
    for (let at = 0; at < reports.length; at++) {
      let behind: Promise<void> | void;
      try {
        behind = reports[at]?.write(outcome);
      } catch (error) {
        return this.#writeOn(outcome, reports, at, Promise.reject(error instanceof Error ? error : new Error(String(error))));
      }
      if (behind !== undefined) return this.#writeOn(outcome, reports, at, behind);
    }
    return WRITTEN;
  }

  /** `write` from the report at `at` on, once that one is behind (or failed): one report at a time, as it was given. */
  async #writeOn(outcome: RowOutcome, reports: readonly ReportWriter[], at: number, pending: Promise<void>): Promise<void> {
    for (let next = at; next < reports.length; next++) {
      const report = reports[next];
      if (report === undefined) continue;
      try {
        const behind = next === at ? pending : report.write(outcome);
        if (behind !== undefined) await behind;
      } catch (error) {
        await this.#dropReport(report, error);
      }
    }
  }

  /**
   * Finish every report with the summary (and the run's metadata, for the reports that show it), close the journal,
   * put the state in place; a failure is recorded, not thrown.
   */
  async close(summary: RunSummary, meta?: RunMeta): Promise<void> {
    await Promise.all(
      this.#reports.map(async (report) => {
        try {
          await report.close(summary, meta);
          this.#written.push(report.path);
        } catch (error) {
          this.#fail('report', report.path, error);
        }
      }),
    );
    this.#reports = [];
    const journal = this.#journal;
    this.#journal = undefined;
    await journal?.close().catch((error: unknown) => this.#fail('journal', this.#plan.journal?.path ?? '', error));
    const state = this.#state;
    this.#state = undefined;
    // Put in place only whole: a state that cannot be written leaves the previous one as it was.
    await state?.commit().catch((error: unknown) => this.#fail('state file', this.#plan.state?.path ?? '', error));
  }

  /** Drop the reports and the state (nothing is left of them) and close the journal (what reached it stays). */
  async abort(): Promise<void> {
    const state = this.#state;
    this.#state = undefined;
    await state?.abort().catch(() => undefined);
    const reports = this.#reports;
    this.#reports = [];
    await Promise.all(reports.map((report) => report.abort()));
    const journal = this.#journal;
    this.#journal = undefined;
    await journal?.close().catch(() => undefined);
  }

  async #dropReport(report: ReportWriter, error: unknown): Promise<void> {
    this.#reports = this.#reports.filter((other) => other !== report);
    await report.abort().catch(() => undefined);
    this.#fail('report', report.path, error);
  }

  #fail(role: OutputFailure['role'], path: string, error: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = { role, path, error: error instanceof Error ? error : new Error(String(error)) };
    this.#plan.onFailure(this.#failure);
  }
}
