import { GithubRun } from '../report/github-run.js';
import { err, workflowLine } from './output.js';
import { cliName } from './setting-flags.js';

/**
 * GitHub Actions output of a `publish` or `validate` run (only when `GITHUB_ACTIONS=true`): failed and invalid rows
 * as `::error` annotations, a markdown summary appended to `$GITHUB_STEP_SUMMARY`, and `::group::` around long
 * lists. The lines and the markdown are built in src/report (annotations.ts, ci-summary.ts), collected and written
 * by src/report/github-run.ts; here is only what reads the environment and writes to stderr.
 *
 * Workflow commands go to **stderr**. The runner obeys them on both streams (its ScriptHandler hands stdout and
 * stderr each to an OutputManager with the command manager), and stdout is this tool's result channel: `--json`
 * and `validate`'s error list are meant for pipes and files, which annotations would corrupt, and a redirected
 * stdout never reaches the runner, so they would be lost exactly then. The one exception is `::group::`, which
 * must travel with the lines it encloses: the runner reads the two pipes separately, so a group around stdout lines
 * (validate's error list) is written on stdout.
 */

// Where the commands have long found them.
export { GithubRun, type GithubOutputs } from '../report/github-run.js';

/** True when running as a GitHub Actions step. */
export function inGithubActions(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/** The GitHub Actions output of a run of `command`, or undefined outside GitHub Actions. */
export function githubActionsRun(command: 'publish' | 'validate', env: NodeJS.ProcessEnv = process.env): GithubRun | undefined {
  if (!inGithubActions(env)) return undefined;
  return new GithubRun(command, {
    command: (line) => workflowLine('stderr', line),
    summaryPath: env.GITHUB_STEP_SUMMARY,
    cwd: process.cwd(),
    workspace: env.GITHUB_WORKSPACE,
    name: cliName,
    summaryFailed: (path, code) => err(`warning: cannot append the job summary to $GITHUB_STEP_SUMMARY (${path}): ${code}`),
  });
}
