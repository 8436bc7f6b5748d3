import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { libraryName, type NameSetting } from '../errors.js';
import { defaultJournalPath } from '../publish/journal.js';
import { describeTarget, sandboxTarget, type RunTarget } from '../publish/run-target.js';
import type { Shape } from '../contract/shapes.js';
import type { Shard } from '../publish/shard.js';
import { count } from '../number-text.js';
import type { PublishNotice } from './publish-spec.js';
import type { OutputFailure } from './run-outputs.js';

/** A notice of the run, worded with the settings that caused it (the CLI names them as its flags). */
export function publishNoticeText(notice: PublishNotice, name: NameSetting = libraryName): string {
  const other = (t: RunTarget | null | undefined): string => (t ? `another target, ${describeTarget(t)}` : 'no target (an older version wrote it)');
  const rows = (n: number): string => `${count(n)} ${n === 1 ? 'row' : 'rows'}`;
  switch (notice.kind) {
    case 'journal-missing':
      return `warning: ${name('resume')}: there is no journal at ${notice.path}, so every row is sent (journals are kept per working directory, source and target; run from the first run's directory or pass its ${name('journal')})`;
    case 'journal-foreign':
      return `notice: ${notice.path} holds ${notice.runs === 1 ? 'a run' : `${notice.runs} runs`} against ${other(notice.other)}: their rows are not taken as published on ${describeTarget(notice.target)}`;
    case 'state-foreign':
      return `notice: the state file ${notice.path} belongs to ${other(notice.other)}: it is ignored (every row counts as new on ${describeTarget(notice.target)}) and this run's state replaces it`;
    case 'lock-taken-over':
      return `notice: took over the lock ${notice.lockPath} of pid ${notice.pid} (started ${notice.startedAt}), which is no longer running`;
    case 'retry-beyond-report': {
      const one = notice.rows === 1;
      return `notice: ${name('retryFailed')}: ${rows(notice.rows)} that ${notice.report} never reached (its run stopped before reading them) ${one ? 'was' : 'were'} sent as well`;
    }
    case 'retry-not-found': {
      const one = notice.rows === 1;
      return `warning: ${name('retryFailed')}: ${rows(notice.rows)} that ${notice.report} lists as failed or not attempted ${one ? 'is' : 'are'} not at ${one ? 'its' : 'their'} place (line and SKU) in this source, so ${one ? 'it was' : 'they were'} not sent: has the source changed since? (${name('changedOnly')} compares by content instead)`;
    }
  }
}

/**
 * Why the run stopped at a write that failed (or, `atClose`, which output failed once every row was sent), what was
 * kept, and what to do; `journalPath`: the journal that has every row sent, when there is one.
 */
export function outputFailureText(failure: OutputFailure, journalPath: string | undefined, atClose: boolean, name: NameSetting = libraryName): { message: string; hint: string } {
  const code = (failure.error as NodeJS.ErrnoException).code;
  const why = `${failure.error.message}${code !== undefined && !failure.error.message.includes(code) ? ` (${code})` : ''}`;
  const message = `cannot write the ${failure.role} ${failure.path}: ${why}; ${atClose ? 'it failed as the run closed, after the rows were sent' : 'sending stopped'}`;
  const next = `after making room, run again with ${name('resume')} (rows sent twice are answered from their Idempotency-Key, not created again)`;
  if (failure.role === 'journal') return { message, hint: `the journal keeps the rows written before the failure; ${next}` };
  if (failure.role === 'state file') return { message, hint: `the previous state is kept whole: the next ${name('changedOnly')} run sends this run's rows again, harmlessly` };
  if (journalPath !== undefined) return { message, hint: `the report was dropped (a cut report would read as complete); the journal ${journalPath} has every row sent: ${next}` };
  return { message, hint: 'the report was dropped (a cut report would read as complete), and no journal was kept: the summary above is the record' };
}

/**
 * A sandbox try-out's journal: out of the working directory's `.listings/`, in a directory of the user's under the
 * system's temporary one, named as the default would be (by source and target), so a resumed try-out finds it.
 */
export function sandboxJournalPath(sources: readonly string[], cwd: string, marketplace: string | undefined, shape: Shape, shard: Shard | undefined): string {
  const inPlace = defaultJournalPath(sources.join('\n'), cwd, sandboxTarget(marketplace, shape), shard);
  return join(tmpdir(), `listings-sandbox-${process.getuid?.() ?? 'user'}`, basename(inPlace));
}
