import { libraryName, UsageError, type NameSetting } from '../errors.js';
import { checkOutputs } from '../fs/check-outputs.js';
import { defaultJournalPath, readPublished } from '../publish/journal.js';
import type { ListingState } from '../publish/listing-state.js';
import { acquireRunLocks, type LockRequest, type RunLocks } from '../publish/run-lock.js';
import { runTarget, sandboxTarget, type RunTarget } from '../publish/run-target.js';
import type { Shape } from '../contract/shapes.js';
import { defaultStatePath, loadState, STATE_RULES } from '../publish/state-file.js';
import { readRetryRows, reportRules, RetrySelection } from '../report/index.js';
import type { PublishNotice, PublishSpec } from './publish-spec.js';
import { checkOutputsAreNotSources } from './outputs-not-sources.js';

/** The files a publish run keeps besides its reports: where, and against which target. */
export interface PublishFiles {
  /** The journal, when the run keeps one (not for a dry run, nor with `journal: false`). */
  journal: string | undefined;
  /** The changed-only state, when the run writes one (changed-only, not a dry run). */
  state: string | undefined;
  /** Where the journal and the state are looked for, kept or not (resume and changed-only read them). */
  journalPath: string;
  statePath: string;
  target: RunTarget | undefined;
}

/** True when a run of this kind and selection keeps or reads a journal or a state, which are kept per target. */
export function publishNeedsTarget(kind: PublishSpec['kind'], selection: PublishSpec['selection'] = {}): boolean {
  return (kind === 'publish' && selection.journal !== false) || selection.changedOnly === true;
}

/**
 * The identity of the target a run publishes to, which its journal and state are kept per: the embedded sandbox's,
 * or the service's (`service` is asked only then: its key may be unset for a sandbox run).
 */
export function publishTargetOf(sandbox: boolean, marketplace: string | undefined, shape: Shape, service: () => { baseUrl: string; apiKey: string }): RunTarget {
  return sandbox ? sandboxTarget(marketplace, shape) : runTarget({ ...service(), marketplace, shape });
}

/**
 * The journal and state paths of a run: as given, else the default of its working directory, sources, target and
 * shard (a shard has its own, so the jobs of a matrix on one machine do not share them).
 */
export function publishFilesOf(spec: PublishSpec, cwd: string): PublishFiles {
  const selection = spec.selection ?? {};
  const target = publishNeedsTarget(spec.kind, selection) ? spec.target.identity : undefined;
  if (publishNeedsTarget(spec.kind, selection) && target === undefined) {
    throw new UsageError('a run that keeps a journal or a changed-only state needs the identity of its target (runTarget), to keep them per target', {
      hint: (name) => `pass target.identity, or set ${name('journal')} to false`,
    });
  }
  const source = spec.source.sources.join('\n');
  const statePath = selection.state ?? (target === undefined ? '' : defaultStatePath(source, cwd, target, selection.shard));
  const journalPath = typeof selection.journal === 'string' ? selection.journal : target === undefined ? '' : defaultJournalPath(source, cwd, target, selection.shard);
  const sends = spec.kind === 'publish';
  return {
    journal: sends && selection.journal !== false ? journalPath : undefined,
    state: sends && selection.changedOnly === true ? statePath : undefined,
    journalPath,
    statePath,
    target,
  };
}

/** Refuse an output path that cannot work (a directory, a missing parent, a pipe for a file put in place) before anything is opened. */
export async function checkPublishOutputs(reports: readonly string[], files: PublishFiles, cwd: string, name: NameSetting, sources: readonly string[] = []): Promise<void> {
  const outputs = [
    ...reports.map((path) => ({ path, role: 'report', rules: reportRules(path) })),
    ...(files.journal === undefined ? [] : [{ path: files.journal, role: 'journal', rules: { private: true } }]),
    ...(files.state === undefined ? [] : [{ path: files.state, role: `state file (${name('changedOnly')})`, rules: STATE_RULES }]),
  ];
  await checkOutputs(outputs, cwd);
  await checkOutputsAreNotSources(
    outputs.map(({ path, role }) => ({ path, role, cwd })),
    sources,
  );
}

/** One run at a time per journal and state file: a second is refused (RunLockedError) before anything is sent. */
export async function lockPublishFiles(files: PublishFiles, cwd: string, name: NameSetting = libraryName): Promise<RunLocks> {
  const requests: LockRequest[] = [
    ...(files.journal === undefined ? [] : [{ path: files.journal, role: 'journal', elsewhere: `${name('journal')} PATH` }]),
    ...(files.state === undefined ? [] : [{ path: files.state, role: 'state file', elsewhere: `${name('state')} PATH` }]),
  ];
  return acquireRunLocks(requests, cwd);
}

/** What decides the rows a run sends, read before it starts: the state, the journal's published rows, the retry list. */
export interface PublishSelectionRead {
  state: ListingState | undefined;
  published: Set<string> | undefined;
  retry: RetrySelection | undefined;
  /** What of the journal and the state was not applied, and why. */
  notices: PublishNotice[];
}

/** Read the state (changed-only), the journal (resume) and the report to retry from, at once. */
export async function readPublishSelection(spec: PublishSpec, files: PublishFiles): Promise<PublishSelectionRead> {
  const selection = spec.selection ?? {};
  const { target, journalPath, statePath } = files;
  const [stateRead, journalRead, retryReport] = await Promise.all([
    selection.changedOnly === true && target !== undefined ? loadState(statePath, target) : undefined,
    selection.resume === true && target !== undefined ? readPublished(journalPath, target) : undefined,
    selection.retryFailed === undefined ? undefined : readRetryRows(selection.retryFailed),
  ]);
  const notices: PublishNotice[] = [];
  if (target !== undefined) {
    if (journalRead !== undefined && !journalRead.found) notices.push({ kind: 'journal-missing', path: journalPath });
    else if (journalRead !== undefined && journalRead.foreignRuns > 0) notices.push({ kind: 'journal-foreign', path: journalPath, runs: journalRead.foreignRuns, other: journalRead.foreignTarget, target });
    if (stateRead?.foreignTarget !== undefined) notices.push({ kind: 'state-foreign', path: statePath, other: stateRead.foreignTarget, target });
  }
  return {
    state: stateRead?.state,
    published: journalRead?.published,
    retry: retryReport === undefined ? undefined : new RetrySelection(retryReport, spec.source.sources),
    notices,
  };
}

/** What `retryFailed` did beyond the rows the report listed, and rows it listed that the source no longer has. */
export function retryNotices(retry: RetrySelection, report: string): PublishNotice[] {
  const missing = retry.listed - retry.matched;
  return [
    ...(retry.beyondReport > 0 ? [{ kind: 'retry-beyond-report' as const, report, rows: retry.beyondReport }] : []),
    ...(missing > 0 ? [{ kind: 'retry-not-found' as const, report, rows: missing }] : []),
  ];
}
