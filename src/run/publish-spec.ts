import type { ReadProgress } from '../catalog/types.js';
import type { EngineStats, ListingSender, PublishEnd } from '../publish/engine-types.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { RunTarget } from '../publish/run-target.js';
import type { RunSummary } from '../report/summary.js';
import type { OutputFailure } from './run-outputs.js';
import type { RunOutputSpec, RunSelectionSpec, RunSourceSpec, RunTargetSpec, RunWatcher, SendingPolicy } from './spec.js';
import type { RunVerdict } from './verdict.js';
import type { NextStep } from './next-step.js';

/** Where a publish sends: a sender now, or one opened once the run's outputs are known to be writable. */
export interface PublishTargetSpec extends RunTargetSpec {
  /**
   * Opens the sender when the run needs it (not for a dry run), after its outputs are checked: for a sender that costs
   * something to open (an embedded sandbox). The caller closes what it opened. `sender`, when given, is used instead.
   */
  connect?: () => Promise<ListingSender>;
}

/**
 * One publish run, as `listings publish` runs it and a library caller can: what to read, where to send, which rows,
 * how fast, and what to write. `dry-run` does everything but the network (rows that would be sent are `validated`)
 * and keeps no journal and no state.
 */
export interface PublishSpec {
  kind: 'publish' | 'dry-run';
  source: RunSourceSpec;
  target: PublishTargetSpec;
  /** Resume, journal, changed-only state, shard, retry-failed. The journal is kept by default (`journal: false` keeps none). */
  selection?: RunSelectionSpec;
  sending?: SendingPolicy;
  outputs?: RunOutputSpec;
}

/**
 * Something the run did not do as asked, or did beyond it, that whoever runs it may want to tell: as data, for the
 * caller to word (the CLI names its flags).
 */
export type PublishNotice =
  /** `resume` found no journal at `path`: every row is sent. */
  | { kind: 'journal-missing'; path: string }
  /** The journal holds `runs` runs against another target (`other`; undefined: they name none): their rows were not taken. */
  | { kind: 'journal-foreign'; path: string; runs: number; other: RunTarget | undefined; target: RunTarget }
  /** The state file belongs to another target (`other`; null: it names none): ignored, and this run's state replaces it. */
  | { kind: 'state-foreign'; path: string; other: RunTarget | null; target: RunTarget }
  /** A lock left by a run no longer alive was taken over. */
  | { kind: 'lock-taken-over'; lockPath: string; pid: number; startedAt: string }
  /** `retryFailed`: rows the report never reached (its run stopped before them) were sent as well. */
  | { kind: 'retry-beyond-report'; report: string; rows: number }
  /** `retryFailed`: rows the report lists that are not at their place (line and SKU) in this source: not sent. */
  | { kind: 'retry-not-found'; report: string; rows: number };

/** The run as it sends, for a progress display: how far reading got, the engine's counts, what is expected. */
export interface PublishRunning {
  readProgress: () => ReadProgress;
  stats: () => EngineStats;
  /** Rows expected to be skipped in no time: already published (resume) and in the state (changed-only). */
  expectedSkips: number;
  /** Listings per input row: the marketplaces a row that names none goes to (1 without a fan-out). */
  fanOutFactor: number;
}

/** What a publish run tells whoever watches it, beyond what every run does. None may throw or feed back into the run. */
export interface PublishWatcher extends RunWatcher {
  /** The outputs are checked and the sender opened: nothing is locked or read yet (a log writes its first event here). */
  onStart?: () => void;
  /** A notice, when it is known (the retry notices once every row has its outcome). */
  onRunNotice?: (notice: PublishNotice) => void;
  /** The catalog and the outputs are open and sending begins (a progress display starts here). */
  onSending?: (running: PublishRunning) => void | Promise<void>;
  /** The first output that could not be written: sending stops. */
  onOutputFailure?: (failure: OutputFailure) => void;
  /** Every row read has its outcome, or the run stopped: before the summary is made. */
  onRowsDone?: () => void;
}

/** How a publish run ended: what the CLI prints, and the exit verdict it gives. */
export interface PublishResult {
  /** The counts, traffic and reading; `report` lists only the reports written whole. */
  summary: RunSummary;
  /** The one verdict (src/run/verdict.ts): exit code and why, decided once the outputs closed. */
  verdict: RunVerdict;
  end: PublishEnd;
  /** The command that continues the work (src/run/next-step.ts), null after a run that exited 0. */
  nextStep: NextStep | null;
  /** The first output that could not be written; `atClose` when it failed as the run closed, after every row was sent. */
  outputFailure?: OutputFailure & { atClose: boolean };
  /** Every notice, in the order told. */
  notices: PublishNotice[];
  /** The first failed and invalid rows (up to {@link ROW_ERRORS_KEPT}); the rest are in the reports. */
  rowErrors: RowOutcome[];
  /** The error that stopped the source, when one did (the verdict is then the source's). */
  sourceError?: unknown;
  /** The journal this run kept, when it kept one. */
  journalPath?: string;
  /** The changed-only state this run wrote, when it wrote one. */
  statePath?: string;
}

/** The failed and invalid rows a result keeps as examples. */
export const ROW_ERRORS_KEPT = 5;
