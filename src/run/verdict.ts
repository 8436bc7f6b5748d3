import { ListingsError } from '../errors.js';
import type { PublishEnd } from '../publish/engine-types.js';
import type { EnqueueEnd } from '../stream/enqueue.js';
import { count } from '../number-text.js';

/** The exit codes: the contract with CI (README "Exit codes"). */
export const EXIT = {
  ok: 0,
  rowsFailed: 1,
  usage: 2,
  service: 3,
  source: 4,
  /** An output (report, journal, state) could not be written mid-run: sending stopped (sysexits EX_IOERR). */
  output: 74,
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What each code means after `listings publish`, for its help: a code added to EXIT must be described here. */
export const PUBLISH_EXITS: Record<ExitCode, string> = {
  0: 'all published',
  1: 'some failed or invalid',
  2: 'usage',
  3: 'service unusable',
  4: 'source unreadable',
  74: 'an output (report, journal, state) could not be written',
  130: 'interrupted',
};

/** `exit 0 all published, 1 some failed or invalid, ...`: a command's codes as its help lists them, in order. */
export function exitCodesText(meanings: Partial<Record<ExitCode, string>>): string {
  const codes = Object.values(EXIT).filter((code) => meanings[code] !== undefined);
  return `exit ${codes.map((code) => `${code} ${meanings[code]}`).join(', ')}`;
}

/** What each code means after `listings create`: one listing, so no source, no outputs. */
export const CREATE_EXITS: Partial<Record<ExitCode, string>> = {
  0: 'listing made',
  1: 'rejected by the service, or invalid (nothing sent)',
  2: 'usage or settings',
  3: 'service unusable',
};

/** What each code means after `listings enqueue` (Kafka takes the service's place). */
export const ENQUEUE_EXITS: Record<ExitCode, string> = {
  0: 'all enqueued',
  1: 'some invalid or not sent',
  2: 'usage',
  3: 'Kafka unusable',
  4: 'source unreadable',
  74: 'a report could not be written',
  130: 'interrupted',
};

/** What ran: the counts that decide a verdict and the words of its `why` depend on it. */
export type RunKind = 'publish' | 'dry-run' | 'validate' | 'stream' | 'enqueue';

/**
 * The counts a verdict reads; a RunSummary has them all. `validate` gives its valid rows as `validated`, `stream`
 * the messages it received as `rows`, and the ones it dead-lettered (which do not fail a stream) as `dead_lettered`;
 * `enqueue` the listings Kafka acknowledged as `enqueued`.
 */
export interface VerdictCounts {
  rows: number;
  published: number;
  validated: number;
  failed: number;
  invalid: number;
  skipped: number;
  not_attempted: number;
  dead_lettered?: number;
  enqueued?: number;
}

/** Every count 0: the counts a run without some of them (validate sends nothing) starts from. */
export const NO_ROWS: Readonly<VerdictCounts> = { rows: 0, published: 0, validated: 0, failed: 0, invalid: 0, skipped: 0, not_attempted: 0 };

/** How a run ended, as far as its exit code is concerned. */
export type RunEnding =
  /** Every row read has its outcome (a stream: it stopped when asked). */
  | { kind: 'complete' }
  /** It stopped once `failed` rows had failed (a validation: were invalid), the limit it was given. */
  | { kind: 'max-errors'; failed: number }
  /** A signal stopped it; `abandoned`, the work in flight was given up. */
  | { kind: 'interrupted'; abandoned?: boolean }
  /** The service could not be used: the key rejected, the endpoint not found, unreachable, accepting nothing. */
  | { kind: 'service'; reason: string }
  /** The source could not be read (to its end). */
  | { kind: 'source'; reason?: string }
  /** An output (report, journal, state file) could not be written. */
  | { kind: 'output'; output: string; path: string; reason?: string }
  /** A usage or configuration error: nothing was sent. */
  | { kind: 'usage'; reason: string };

/** Why a run exits as it does: its kind, code and one sentence for a person (no command-line flag in it). */
export interface RunVerdict {
  kind: 'ok' | 'rows-failed' | Exclude<RunEnding['kind'], 'complete'>;
  exitCode: ExitCode;
  why: string;
}

const CODES: Record<RunVerdict['kind'], ExitCode> = {
  'ok': EXIT.ok,
  'rows-failed': EXIT.rowsFailed,
  'max-errors': EXIT.rowsFailed,
  'usage': EXIT.usage,
  'service': EXIT.service,
  'source': EXIT.source,
  'output': EXIT.output,
  'interrupted': EXIT.interrupted,
};

function rowsText(n: number, noun = 'row'): string {
  return `${count(n)} ${n === 1 ? noun : `${noun}s`}`;
}

/** `95 rows published, 3 failed`: the counts that are not 0, the first with its `noun`; undefined when all are 0. */
function countsText(parts: [number, string][], noun: string | null = 'row'): string | undefined {
  const shown = parts.filter(([n]) => n > 0);
  if (shown.length === 0) return undefined;
  return shown.map(([n, label], i) => `${i === 0 && noun !== null ? rowsText(n, noun) : count(n)} ${label}`).join(', ');
}

function doneOf(counts: VerdictCounts, run: RunKind): [number, string] {
  if (run === 'enqueue') return [counts.enqueued ?? 0, 'enqueued'];
  return run === 'publish' || run === 'stream' ? [counts.published, 'published'] : [counts.validated, 'valid'];
}

function badParts(counts: VerdictCounts, run: RunKind): [number, string][] {
  return [
    [counts.failed, 'failed'],
    [counts.invalid, 'invalid'],
    [counts.not_attempted, run === 'validate' ? 'not validated' : 'not attempted'],
  ];
}

/** Every count of a run that stopped: `40 rows published, 2 failed, 58 not attempted`. */
function allCounts(counts: VerdictCounts, run: RunKind): string {
  return countsText([doneOf(counts, run), ...badParts(counts, run), [counts.skipped, 'skipped']]) ?? 'no row was read';
}

/** The why of a run that ended as it should and whose every row went through: all done, or some skipped. */
function allWent(counts: VerdictCounts, run: RunKind): string {
  const [done, label] = doneOf(counts, run);
  if (counts.rows === 0) return 'the source had no rows';
  if (done === counts.rows) return `${counts.rows === 1 ? '1 row' : `all ${rowsText(counts.rows)}`} ${label}`;
  if (done === 0) return `nothing to do: ${rowsText(counts.skipped)} skipped`;
  return `${rowsText(done)} ${label}, ${count(counts.skipped)} skipped`;
}

/** The verdict of a run that ended as it should: 0 when no row failed, else 1 (a stream's dead letters do not fail it). */
function completed(counts: VerdictCounts, run: RunKind): RunVerdict {
  if (run === 'stream') {
    const parts = countsText([[counts.published, 'published'], [counts.dead_lettered ?? 0, 'dead-lettered']], 'message');
    return { kind: 'ok', exitCode: EXIT.ok, why: `the stream stopped cleanly: ${parts ?? 'no message arrived'}` };
  }
  const sent = run === 'dry-run' ? ' (nothing was sent)' : '';
  const bad = countsText(badParts(counts, run));
  if (bad === undefined) return { kind: 'ok', exitCode: EXIT.ok, why: `${allWent(counts, run)}${sent}` };
  // `3 rows failed; 97 published`
  const good = countsText([doneOf(counts, run), [counts.skipped, 'skipped']], null);
  return { kind: 'rows-failed', exitCode: EXIT.rowsFailed, why: `${bad}${good === undefined ? '' : `; ${good}`}${sent}` };
}

/**
 * The one verdict of a run: how it ended and what its rows came to, as an exit code and the sentence that says why.
 * An ending that is not `complete` decides the code alone; a complete run exits 1 when any row failed, was invalid
 * or was not attempted.
 */
export function verdictOf(run: RunKind, end: RunEnding, counts: VerdictCounts): RunVerdict {
  const kind = end.kind;
  if (kind === 'complete') return completed(counts, run);
  // `interrupted by a signal; 40 rows published, 60 not attempted`: what stopped it (and why), then the counts.
  const verdict = (what: string, reason?: string): RunVerdict => {
    const tail = run === 'stream' ? '' : `; ${allCounts(counts, run)}`;
    return { kind, exitCode: CODES[kind], why: `${what}${reason === undefined ? '' : `: ${reason}`}${tail}` };
  };
  switch (end.kind) {
    case 'max-errors':
      if (run === 'validate') return verdict(`the validation stopped once ${rowsText(end.failed)} ${end.failed === 1 ? 'was' : 'were'} invalid, the most it was allowed`);
      return verdict(`the run stopped once ${rowsText(end.failed)} had failed, the most it was allowed`);
    case 'interrupted':
      if (end.abandoned === true && run === 'stream') return { kind, exitCode: CODES[kind], why: 'abandoned by a second signal: what was not committed is read again by the next reader' };
      return verdict(end.abandoned === true ? 'abandoned by a second signal' : 'interrupted by a signal');
    case 'service':
      return verdict(`${run === 'enqueue' ? 'Kafka' : 'the service'} could not be used, so nothing more was sent`, end.reason);
    case 'source':
      return verdict(run === 'stream' ? 'Kafka could not be used' : 'the source could not be read to its end', end.reason);
    case 'output':
      return verdict(`the ${end.output} ${end.path} could not be written`, end.reason);
    case 'usage':
      return { kind, exitCode: CODES[kind], why: `${end.reason}: nothing was sent` };
  }
}

/** What {@link publishVerdict} reads of a publish run once its outcomes are counted. */
export interface PublishVerdictInput {
  /** `run.end`. */
  end: PublishEnd;
  /** The run's summary (`SummaryCounter.summary`), or the same counts; `interrupted` when a signal stopped it. */
  summary: VerdictCounts & { interrupted: boolean };
  /** `outputs.failure`: the first report, journal or state write that failed. */
  outputFailure?: { role: string; path: string; error: Error } | undefined;
  dryRun?: boolean;
}

/** The ending of an error that stopped a run, as the CLI's one catch maps its kind: the catalog's own errors are the source's. */
export function endingOfError(error: unknown): Extract<RunEnding, { kind: 'usage' | 'source' | 'service' }> {
  const kind = error instanceof ListingsError ? error.kind : 'source';
  const reason = error instanceof Error ? error.message : String(error);
  if (kind === 'usage' || kind === 'config') return { kind: 'usage', reason };
  return kind === 'source' ? { kind: 'source', reason } : { kind: 'service', reason };
}

/** The exit code of an error that ends a command: 2 usage or configuration, 4 the source, 3 the service. */
export function exitCodeOfError(error: unknown): ExitCode {
  return CODES[endingOfError(error).kind];
}

function publishEnding({ end, summary, outputFailure }: PublishVerdictInput): RunEnding {
  if (outputFailure !== undefined) {
    const { error } = outputFailure;
    return { kind: 'output', output: outputFailure.role, path: outputFailure.path, reason: error.message };
  }
  if (end.kind === 'source') return endingOfError(end.error);
  // A stop of the run's own (an output that failed) is told above; any other is a signal.
  if (summary.interrupted || end.kind === 'interrupted') return { kind: 'interrupted' };
  if (end.kind === 'systemic') return { kind: 'service', reason: end.reason };
  if (end.kind === 'max-errors') return { kind: 'max-errors', failed: end.failed };
  return { kind: 'complete' };
}

/**
 * The verdict of a publish run, the CLI's and a library caller's alike: an output that failed, then a source that
 * could not be read, a signal, a service that could not be used, the error limit, and last the rows.
 *
 * ```ts
 * const verdict = publishVerdict({ end: run.end, summary, outputFailure: outputs.failure });
 * process.exitCode = verdict.exitCode; // and verdict.why says why, in a sentence
 * ```
 */
export function publishVerdict(input: PublishVerdictInput): RunVerdict {
  return verdictOf(input.dryRun === true ? 'dry-run' : 'publish', publishEnding(input), input.summary);
}

/**
 * The verdict of `listings enqueue`: as a publish run's, Kafka in the service's place (exit 3 when it refused a
 * batch), and the rows: 0 when every listing was enqueued (or skipped by design), 1 when any was invalid or not sent.
 */
export function enqueueVerdict(end: EnqueueEnd, counts: VerdictCounts & { interrupted: boolean }, outputFailure?: PublishVerdictInput['outputFailure']): RunVerdict {
  return verdictOf('enqueue', enqueueEnding(end, counts.interrupted, outputFailure), counts);
}

function enqueueEnding(end: EnqueueEnd, interrupted: boolean, outputFailure: PublishVerdictInput['outputFailure']): RunEnding {
  if (outputFailure !== undefined) return { kind: 'output', output: outputFailure.role, path: outputFailure.path, reason: outputFailure.error.message };
  if (end.kind === 'source') return endingOfError(end.error);
  if (interrupted || end.kind === 'interrupted') return { kind: 'interrupted' };
  if (end.kind === 'kafka') return { kind: 'service', reason: end.error instanceof Error ? end.error.message : String(end.error) };
  return { kind: 'complete' };
}

/** The exit code of `doctor`'s (and `init`'s) checks by whose fault a failure is (`checksFault`): 2 the configuration's, 3 the service's, 0 none. */
export function exitCodeOfFault(fault: 'config' | 'service' | undefined): ExitCode {
  return fault === 'config' ? EXIT.usage : fault === 'service' ? EXIT.service : EXIT.ok;
}
