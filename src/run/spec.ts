import type { CatalogOptions } from '../catalog/types.js';
import type { ListingDefaults } from '../prepare/types.js';
import type { ListingSender, PublishOptions } from '../publish/engine-types.js';
import type { RunTarget } from '../publish/run-target.js';
import type { Shard } from '../publish/shard.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { NameSetting } from '../errors.js';

/**
 * The parts every run is described by, one type each; a kind's spec (publish, dry run, validate, stream) is these
 * parts and what only that kind has. The CLI builds a spec from flags, env and profile; a library caller builds the
 * same spec and gets the same run, the same outputs and the same verdict.
 */

/** What a run reads: its sources, and how their records become drafts (formats, mapping, presets, source options). */
export interface RunSourceSpec {
  sources: readonly string[];
  catalog: CatalogOptions;
}

/** Where the listings go: the resolved defaults, and the service (absent for a run that sends nothing). */
export interface RunTargetSpec {
  defaults: ListingDefaults;
  /** Sends one request; absent for a dry run or a validation. */
  sender?: ListingSender;
  /** The identity journals and states are kept under (`runTarget`, `sandboxTarget`); never holds the key. */
  identity?: RunTarget;
  /** How reports name the service: `host[:port]`, or `sandbox (in-process)`; never a URL with credentials. */
  label?: string;
}

/** Which rows are sent; a row not selected still ends in the reports, `skipped` with its reason. */
export interface RunSelectionSpec {
  /** Skip the rows the journal says an earlier run published. */
  resume?: boolean;
  /** The journal: a path, `false` for none, absent for the default path under `cwd`. */
  journal?: string | false;
  /** Send only the rows new or changed since the state was written. */
  changedOnly?: boolean;
  /** The changed-only state: a path, absent for the default path under `cwd`. */
  state?: string;
  shard?: Shard;
  /** A report of an earlier run: send again only its failed and not-attempted rows. */
  retryFailed?: string;
}

/** How requests leave: the engine's sending options (concurrency, pace, retries, give-up, error limit). */
export type SendingPolicy = Pick<PublishOptions, 'concurrency' | 'maxConcurrency' | 'limiter' | 'rate' | 'giveUpAfterMs' | 'retryPolicy' | 'retryBudget' | 'maxErrors'>;

/** What a run writes besides its outcomes: reports (format by extension), and where relative default paths live. */
export interface RunOutputSpec {
  reports: readonly string[];
  /** The directory default journal and state paths are kept under. Default `process.cwd()`. */
  cwd?: string;
  /** The profile the settings came from, for the reports' metadata. */
  profile?: string;
  /** How a report or an error names a setting in a next step; the CLI passes its flag names. */
  name?: NameSetting;
  /** The words a next step repeats after the sources (the CLI: the flags given that choose the rows and the target). */
  repeat?: readonly string[];
}

/** What a running run tells whoever watches it; all optional, none may throw, none feeds back into the run. */
export interface RunWatcher {
  /** A catalog notice (a header matched loosely, a column not read): once each. */
  onNotice?: CatalogOptions['onNotice'];
  /** A row's outcome as soon as its answer came (progress counts, rates). */
  onSettled?: (outcome: RowOutcome) => void;
  /** Each outcome in input order, as it is handed to the outputs (logs, CI annotations). */
  onOutcome?: (outcome: RowOutcome) => void;
  /** Engine events (answers, retries, limit changes) for a verbose log; without it none is built. */
  onEvent?: PublishOptions['onEvent'];
  /** Stop reading and sending; requests in flight finish. */
  stop?: AbortSignal;
  /** Stop and cut the requests in flight. */
  abandon?: AbortSignal;
}
