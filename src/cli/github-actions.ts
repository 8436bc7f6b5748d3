import { appendFileSync } from 'node:fs';
import type { RowOutcome } from '../publish/outcome.js';
import type { PreparedRow } from '../prepare/types.js';
import { annotationLines, workflowCommand } from '../report/annotations.js';
import { publishSummaryMarkdown, validateSummaryMarkdown, type PublishSummaryOptions, type ValidateCounts, type Verdict } from '../report/ci-summary.js';
import { RowErrorCollector, rowErrorOf, rowErrorOfPrepared } from '../report/row-errors.js';
import type { RunSummary } from '../report/summary.js';
import { redact } from '../secrets.js';
import { err, workflowLine } from './output.js';
import { cliName } from './setting-flags.js';

/**
 * GitHub Actions output of a `publish` or `validate` run (only when `GITHUB_ACTIONS=true`): failed and invalid rows
 * as `::error` annotations, a markdown summary appended to `$GITHUB_STEP_SUMMARY`, and `::group::` around long
 * lists. The lines and the markdown are built in src/report (annotations.ts, ci-summary.ts); {@link GithubRun} is
 * the small writer around them.
 *
 * Workflow commands go to **stderr**. The runner obeys them on both streams (its ScriptHandler hands stdout and
 * stderr each to an OutputManager with the command manager), and stdout is this tool's result channel: `--json`
 * and `validate`'s error list are meant for pipes and files, which annotations would corrupt, and a redirected
 * stdout never reaches the runner, so they would be lost exactly then. The one exception is `::group::`, which
 * must travel with the lines it encloses: the runner reads the two pipes separately, so a group around stdout lines
 * (validate's error list) is written on stdout.
 */

/** True when running as a GitHub Actions step. */
export function inGithubActions(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/** Where a run writes: stderr for workflow commands, the step summary file. Injectable for tests. */
export interface GithubOutputs {
  /** A line of workflow commands (stderr). */
  command: (line: string) => void;
  /** `$GITHUB_STEP_SUMMARY`, when set. */
  summaryPath: string | undefined;
  cwd: string;
  /** `$GITHUB_WORKSPACE`, when set: annotations name the files inside it relative to it. */
  workspace?: string | undefined;
}

/** The GitHub Actions output of one run of `command`: collects row errors, then writes annotations and the summary. */
export class GithubRun {
  readonly errors = new RowErrorCollector();
  #openGroup: ((line: string) => void) | undefined;

  constructor(
    readonly command: 'publish' | 'validate',
    private readonly outputs: GithubOutputs,
  ) {}

  /** Collect a publish outcome (only failed and invalid rows are kept, up to the cap). */
  add(outcome: RowOutcome): void {
    this.errors.add(rowErrorOf(outcome));
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
    this.#appendSummary(publishSummaryMarkdown(summary, this.errors, options, cliName));
  }

  /** Annotations, then the step summary of a `validate` run. */
  finishValidate(counts: ValidateCounts, sources: readonly string[], verdict: Verdict): void {
    // validate's terminal lines name the marketplace of every row that has one.
    this.#annotate([], true);
    this.#appendSummary(validateSummaryMarkdown(counts, this.errors, sources, verdict));
  }

  #annotate(reports: readonly string[], marketplaces: boolean): void {
    this.endGroup();
    for (const line of annotationLines(this.command, this.errors, this.outputs.cwd, reports, this.outputs.workspace, cliName, marketplaces)) this.outputs.command(line);
  }

  /** Append to the step summary; a summary that cannot be written is a warning, never the run's failure. */
  #appendSummary(markdown: string): void {
    const path = this.outputs.summaryPath;
    if (path === undefined || path === '') return;
    try {
      appendFileSync(path, redact(markdown));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      err(`warning: cannot append the job summary to $GITHUB_STEP_SUMMARY (${path}): ${code}`);
    }
  }
}

/** The GitHub Actions output of a run of `command`, or undefined outside GitHub Actions. */
export function githubActionsRun(command: 'publish' | 'validate', env: NodeJS.ProcessEnv = process.env): GithubRun | undefined {
  if (!inGithubActions(env)) return undefined;
  return new GithubRun(command, { command: (line) => workflowLine('stderr', line), summaryPath: env.GITHUB_STEP_SUMMARY, cwd: process.cwd(), workspace: env.GITHUB_WORKSPACE });
}
