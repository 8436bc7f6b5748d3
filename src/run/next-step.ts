import { libraryName, type NameSetting } from '../errors.js';
import { reportFormatOf } from '../report/report-writer.js';
import type { NextStep } from '../report/run-meta.js';
import { printable } from '../printable.js';
import { redact } from '../secrets.js';
import { secretFreeWords } from './secret-free-words.js';
import { shellWord } from '../shell-words.js';
import type { RunVerdict, VerdictCounts } from './verdict.js';
import { count } from '../number-text.js';

export type { NextStep } from '../report/run-meta.js';

/**
 * The one decision of what to do after a run that did not exit 0: the command that continues its work and why. The
 * terminal, the JSON result, the log's `summary` event, the HTML report and the step summary all show this one answer.
 * Pure: the CLI passes its flags as `name` and the words it repeats; a library caller gets option names.
 */

/** Report formats `retryFailed` reads back. */
const READABLE = new Set(['csv', 'json', 'ndjson']);

/** What {@link nextStep} reads of a run. */
export interface NextStepInput {
  command: 'publish' | 'validate' | 'stream' | 'enqueue';
  verdict: Pick<RunVerdict, 'kind' | 'exitCode'>;
  counts: Pick<VerdictCounts, 'failed' | 'invalid' | 'not_attempted'>;
  /** The sources as given. */
  sources: readonly string[];
  /** The reports written (a report dropped is not one to read back). */
  reports?: readonly string[];
  /** A journal was kept: the next run can resume. */
  journal?: boolean;
  dryRun?: boolean;
  /** The other words of the command as it ran, that the next one repeats (the CLI: its flags that choose the rows and the target). */
  repeat?: readonly string[];
  /** The service's reason and fix, when it could not be used (PublishEnd `systemic`). */
  stopped?: { reason: string; hint?: string | undefined };
  /** The output that could not be written. */
  outputPath?: string;
  /** How a setting is named: the library's option name unless told (the CLI: its flags). */
  name?: NameSetting;
  /** The program's name. Default `listings`. */
  program?: string;
}

function rows(n: number, label = ''): string {
  return `${count(n)} ${label}${n === 1 ? 'row' : 'rows'}`;
}

/** The first report written that `retryFailed` can read back. */
function readableReport(reports: readonly string[]): string | undefined {
  return reports.find((path) => {
    try {
      return READABLE.has(reportFormatOf(path));
    } catch {
      return false;
    }
  });
}

/** `the 3 failed and 40 not attempted rows`. */
function leftRows(failed: number, notAttempted: number): string {
  if (failed > 0 && notAttempted > 0) return `the ${count(failed)} failed and ${rows(notAttempted, 'not attempted ')}`;
  return failed > 0 ? `the ${rows(failed, 'failed ')}` : `the ${rows(notAttempted, 'not attempted ')}`;
}

/** `fix the cause first (API key rejected)`: the reason's first words (its details and fix are told beside it). */
function fixFirst(stopped: NextStepInput['stopped']): string {
  const reason = stopped?.reason.split(' (')[0]?.trim();
  return `fix the cause first${reason === undefined || reason === '' ? '' : ` (${reason})`}`;
}

const ANSWERED = '(a row already published is answered from its Idempotency-Key, not created twice)';

interface Continuation {
  /** What the next run adds to the command: the `resume` setting, `retryFailed` with a report, or nothing. */
  words: string[];
  /** What it then does. */
  does: string;
}

/** How a publish run goes on from where this one stopped: the journal, else a report read back, else the same run again. */
function continuation(input: NextStepInput, name: NameSetting): Continuation {
  const report = readableReport(input.reports ?? []);
  if (input.journal === true) return { words: [name('resume')], does: 'continue where this run stopped' };
  if (report !== undefined) return { words: [name('retryFailed'), report], does: `send the rows ${report} lists as failed or not attempted again` };
  return { words: [], does: `run it again ${ANSWERED}` };
}

/** The rows of a publish run that finished with some failed, invalid or not attempted. */
function rowsStep(input: NextStepInput, name: NameSetting): Continuation {
  const { failed, invalid, not_attempted: notAttempted } = input.counts;
  if (input.dryRun === true) return { words: [], does: `fix the ${rows(invalid, 'invalid ')} at the lines shown, then check again` };
  const report = readableReport(input.reports ?? []);
  if (invalid === 0 && failed + notAttempted > 0 && report !== undefined) return { words: [name('retryFailed'), report], does: `send ${leftRows(failed, notAttempted)} again` };
  const go = continuation(input, name);
  if (invalid === 0) return { words: go.words, does: `send ${leftRows(failed, notAttempted)} again${go.words.length === 0 ? ` by running it again ${ANSWERED}` : ''}` };
  const rest = failed + notAttempted > 0 ? ` (${leftRows(failed, notAttempted)} go again too)` : '';
  return { words: go.words, does: `fix the ${rows(invalid, 'invalid ')} at the lines shown, then ${go.does}${rest}` };
}

function publishStep(input: NextStepInput, name: NameSetting): Continuation | undefined {
  switch (input.verdict.kind) {
    case 'rows-failed':
    case 'max-errors':
      return rowsStep(input, name);
    case 'interrupted': {
      const go = continuation(input, name);
      return { words: go.words, does: go.does };
    }
    case 'service': {
      const go = continuation(input, name);
      return { words: go.words, does: `${fixFirst(input.stopped)}, then ${go.does}` };
    }
    case 'output': {
      const go = continuation(input, name);
      return { words: go.words, does: `make room for ${input.outputPath ?? 'the output'} (or write it elsewhere), then ${go.does}` };
    }
    case 'source': {
      const go = continuation(input, name);
      return { words: go.words, does: `make the source readable to its end, then ${go.does}` };
    }
    default:
      return undefined;
  }
}

function otherStep(input: NextStepInput): Continuation | undefined {
  const kind = input.verdict.kind;
  if (input.command === 'validate') {
    if (kind === 'rows-failed' || kind === 'max-errors') return { words: [], does: `fix the ${rows(input.counts.invalid, 'invalid ')} at the lines shown, then validate again` };
    if (kind === 'source') return { words: [], does: 'make the source readable to its end, then validate again' };
    return kind === 'interrupted' ? { words: [], does: 'validate again' } : undefined;
  }
  const again = input.command === 'stream' ? 'start the worker again (the messages not committed are read again)' : 'enqueue again';
  if (kind === 'service') return { words: [], does: `${fixFirst(input.stopped)}, then ${again}` };
  if (kind === 'interrupted' || kind === 'source') return { words: [], does: again };
  if (kind === 'output') return { words: [], does: `make room for ${input.outputPath ?? 'the output'}, then ${again}` };
  if (kind === 'rows-failed' && input.command === 'enqueue') return { words: [], does: `fix the rows at the lines shown, then ${again}` };
  return undefined;
}

/**
 * The command that continues the work of a run that did not exit 0, and why; null after a run that exited 0, or one
 * with nothing to continue (a usage error). Its words are quoted for a POSIX shell; a word that holds a credential
 * (a source URL with a token) is read from a variable, and `why` says what to set it to, the credential masked.
 */
export function nextStep(input: NextStepInput): NextStep | null {
  if (input.verdict.exitCode === 0) return null;
  const name = input.name ?? libraryName;
  const step = input.command === 'publish' ? publishStep(input, name) : otherStep(input);
  if (step === undefined) return null;
  // A source that starts with `-` would be read as an option: the sources then go last, after `--`.
  const dashed = input.sources.some((source) => source.startsWith('-') && source !== '-');
  const flags = [...(input.repeat ?? []), ...step.words];
  const { words, set } = secretFreeWords(dashed ? [...flags, '--', ...input.sources] : [...input.sources, ...flags], name('sourceHeaders'));
  const why = set === '' ? step.does : `${step.does} (${set})`;
  // `why` names paths (a report, the output that failed): their line breaks escaped, so it stays one line.
  return { command: [shellWord(input.program ?? 'listings'), shellWord(input.command), ...words].join(' '), why: redact(printable(why, { lines: false })) };
}
