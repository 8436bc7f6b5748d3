import { appendFileSync } from 'node:fs';
import { libraryName, type NameSetting } from '../errors.js';
import { failedWithTheRun, type RowOutcome } from '../publish/outcome.js';
import type { PublishEnd } from '../publish/engine-types.js';
import type { NextStep } from './run-meta.js';
import type { PreparedRow } from '../prepare/types.js';
import { redact } from '../secrets.js';
import { annotationLines, inertText, workflowCommand } from './annotations.js';
import { publishSummaryMarkdown, validateSummaryMarkdown, type PublishSummaryOptions, type ValidateCounts, type Verdict } from './ci-summary.js';
import { RowErrorCollector, rowErrorOf, rowErrorOfPrepared } from './row-errors.js';
import type { RunSummary } from './summary.js';

/**
 * The GitHub Actions output of a `publish` or `validate` run: failed and invalid rows collected (up to a cap), then
 * written as `::error` annotations through `outputs.command`, a markdown summary appended to the step summary file,
 * and `::group::` around long lists. The lines and the markdown are built by annotations.ts and ci-summary.ts; where
 * the commands go (stderr) and whether the run is in GitHub Actions at all is the caller's (src/cli/github-actions.ts).
 */

/** Where a run writes: stderr for workflow commands, the step summary file. Injectable for tests. */
export interface GithubOutputs {
  /** A line of workflow commands (stderr). */
  command: (line: string) => void;
  /** `$GITHUB_STEP_SUMMARY`, when set. */
  summaryPath: string | undefined;
  cwd: string;
  /** `$GITHUB_WORKSPACE`, when set: annotations name the files inside it relative to it. */
  workspace?: string | undefined;
  /** How annotations and the summary name a setting in a next step: by its option name unless told (the CLI: its flags). */
  name?: NameSetting | undefined;
  /** Told when the step summary cannot be appended (never the run's failure): the path and the error's code. */
  summaryFailed?: ((path: string, code: string) => void) | undefined;
}

/** The GitHub Actions output of one run of `command`: collects row errors, then writes annotations and the summary. */
export class GithubRun {
  readonly errors = new RowErrorCollector();
  #openGroup: ((line: string) => void) | undefined;

  constructor(
    readonly command: 'publish' | 'validate',
    private readonly outputs: GithubOutputs,
  ) {}

  /** Collect a publish outcome (only failed and invalid rows are kept, up to the cap; not those that failed only with the run). */
  add(outcome: RowOutcome): void {
    if (!failedWithTheRun(outcome)) this.errors.add(rowErrorOf(outcome));
  }

  /** Collect a validated row. */
  addPrepared(row: PreparedRow): void {
    this.errors.add(rowErrorOfPrepared(row));
  }

  /**
   * A writer of a long list on one stream (`write`), that opens `::group::title` on that stream (`writeCommand`: the
   * same stream, for the tool's own workflow commands) before its first line; {@link endGroup} closes it. A list that
   * prints nothing leaves no empty group.
   */
  grouped(title: string, write: (line: string) => void, writeCommand: (line: string) => void): (line: string) => void {
    let opened = false;
    return (line) => {
      if (!opened) {
        opened = true;
        this.#openGroup = writeCommand;
        writeCommand(workflowCommand('group', {}, title));
      }
      write(line);
    };
  }

  /** Close the group a {@link grouped} writer opened, if it did. */
  endGroup(): void {
    this.#openGroup?.('::endgroup::');
    this.#openGroup = undefined;
  }

  /** Annotations, then the step summary of a `publish` run. */
  finishPublish(summary: RunSummary, options: PublishSummaryOptions): void {
    // The terminal names a row's marketplace when the run went to several; so do the annotations.
    this.#annotate(summary.report, summary.by_marketplace !== undefined);
    if (options.end?.kind === 'systemic') this.outputs.command(serviceAnnotation(this.command, options.end, options.nextStep));
    this.#appendSummary(publishSummaryMarkdown(summary, this.errors, options, this.outputs.name ?? libraryName));
  }

  /** Annotations, then the step summary of a `validate` run. */
  finishValidate(counts: ValidateCounts, sources: readonly string[], verdict: Verdict, nextStep?: NextStep | null): void {
    // validate's terminal lines name the marketplace of every row that has one.
    this.#annotate([], true);
    this.#appendSummary(validateSummaryMarkdown(counts, this.errors, sources, verdict, nextStep));
  }

  #annotate(reports: readonly string[], marketplaces: boolean): void {
    this.endGroup();
    for (const line of annotationLines(this.command, this.errors, this.outputs.cwd, reports, this.outputs.workspace, this.outputs.name ?? libraryName, marketplaces)) this.outputs.command(line);
  }

  /** Append to the step summary; a summary that cannot be written is a warning, never the run's failure. */
  #appendSummary(markdown: string): void {
    const path = this.outputs.summaryPath;
    if (path === undefined || path === '') return;
    try {
      appendFileSync(path, redact(markdown));
    } catch (error) {
      this.outputs.summaryFailed?.(path, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  }
}

/** The one annotation of a run the service stopped: why, the fix, and the next step; no row is blamed for it. */
export function serviceAnnotation(command: string, end: Extract<PublishEnd, { kind: 'systemic' }>, step: NextStep | null | undefined): string {
  const fix = end.hint === undefined ? '' : ` Fix: ${end.hint}.`;
  const next = step === undefined || step === null ? '' : ` Next: ${step.why}: ${step.command}`;
  return workflowCommand('error', { title: `listings ${command}: service unusable` }, inertText(`the service could not be used, so the run stopped: ${end.reason}.${fix}${next}`));
}
