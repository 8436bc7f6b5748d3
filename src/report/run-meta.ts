import type { NameSetting } from '../errors.js';

/**
 * What a report can say about the run beyond its rows and counts: where it came from, where it went, how it ended.
 * Given to `ReportWriter.close`; only the HTML report shows it (the other formats keep their documented shape: they
 * take only `name`, for the wording of their not_read line).
 * Every field is optional: a report says what it was told. It never holds the API key, and `target` is a host, not
 * a URL (a base URL may carry credentials).
 */
export interface RunMeta {
  /** The sources as given on the command line (a path, `-`, a URL, `s3://...`). */
  sources?: readonly string[] | undefined;
  /** The config profile the settings were resolved with. */
  profile?: string | undefined;
  /** The service the rows went to, as `host[:port]`, or a name such as `sandbox (in-process)`. */
  target?: string | undefined;
  /** The marketplace every row defaulted to, when one was set (rows may still name their own). */
  marketplace?: string | undefined;
  /** When the run started (before the source was opened). */
  startedAt?: Date | undefined;
  /** The version of listings that ran. */
  toolVersion?: string | undefined;
  /** The exit code the run ends with (0, 1, 3, 4, 74, 130: see the README's table). */
  exitCode?: number | undefined;
  /** Why it ends with that code, in one sentence (the run's verdict: `publishVerdict`). */
  why?: string | undefined;
  /** A `--dry-run`: nothing was sent. */
  dryRun?: boolean | undefined;
  /**
   * How the report names a setting in a next step it gives (sending the rows it did not read again, keeping every
   * row): by the library's option name (`retryFailed`) unless told; the CLI passes its flags.
   */
  name?: NameSetting | undefined;
  /** The command that continues the work, and why (src/run/next-step.ts); null or absent when there is none. */
  nextStep?: NextStep | null | undefined;
  /** Why a run stopped as a whole (the service could not be used): the reason and its fix, for a banner. */
  stopped?: { reason: string; hint?: string | undefined } | undefined;
}

/** The command that continues a run's work, safe to paste in a POSIX shell, and what it does (`send the 28 failed rows again`). */
export interface NextStep {
  command: string;
  why: string;
}
