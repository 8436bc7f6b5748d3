import chalk, { chalkStderr, type ChalkInstance } from 'chalk';
import { redact, registerEnvironmentSecrets } from '../secrets.js';
import { runnerSafe, terminalSafe } from '../printable.js';

// The escaping is src/printable.ts's; main.ts finds it here.
export { runnerSafe, terminalSafe };

// Whatever the command, the AWS credentials of the environment are never shown (an S3 store may echo them).
registerEnvironmentSecrets();

// NO_COLOR (https://no-color.org) wins unless FORCE_COLOR asks for colour explicitly.
if (process.env.NO_COLOR && !process.env.FORCE_COLOR) {
  chalk.level = 0;
  chalkStderr.level = 0;
}

/** Colours for stderr-bound text; plain when stderr is not a terminal (unless FORCE_COLOR). */
export const paint: ChalkInstance = chalkStderr;

/** Colours for stdout-bound text, decided by stdout (a pipe gets none). */
export const paintOut: ChalkInstance = chalk;

const CLOSED_PIPE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * A reader that goes away (`listings validate big.csv | head`, `listings publish --help | head`) closes the pipe:
 * what is still written there is dropped, instead of the process dying on an EPIPE with a stack trace. The command
 * itself goes on and ends with its own exit code (a run still writes its reports and journal).
 */
export function tolerateClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (!CLOSED_PIPE.has(error.code ?? '')) throw error;
    });
  }
}

function writeLine(stream: NodeJS.WriteStream, line: string, colours: boolean, lineCommands = true): void {
  stream.write(`${runnerSafe(terminalSafe(redact(line), colours), lineCommands)}\n`);
}

/** A line of results on stdout. Every line leaves through redact, so a secret can never be printed. */
export function out(line: string): void {
  writeLine(process.stdout, line, paintOut.level > 0);
}

/** A line of diagnostics on stderr. */
export function err(line: string): void {
  writeLine(process.stderr, line, paint.level > 0);
}

/**
 * One of the tool's own GitHub workflow commands (`::error file=...::message`, `::group::title`), on stdout or stderr:
 * the only line that may start with `::`. Its parts were escaped by `workflowCommand` (src/report/annotations.ts).
 */
export function workflowLine(stream: 'stdout' | 'stderr', line: string): void {
  if (stream === 'stdout') writeLine(process.stdout, line, paintOut.level > 0, false);
  else writeLine(process.stderr, line, paint.level > 0, false);
}

/** True in CI or when stderr is not a terminal: no spinners, no prompts. */
export function isInteractive(): boolean {
  const ci = process.env.CI;
  return Boolean(process.stderr.isTTY) && (ci === undefined || ci === '' || ci === 'false' || ci === '0');
}

const KEY_OPTION = /unknown option '--api-key(=[^']*)?'/;

/**
 * commander's error text as the CLI says it, with what commander cannot know: an API key is no option (`--api-key`;
 * its value, if written `--api-key=...`, is not repeated), it comes from the environment, which the hint says.
 */
export function wordCommanderError(text: string): { text: string; hint: string | undefined } {
  if (!KEY_OPTION.test(text)) return { text, hint: undefined };
  return {
    text: text.replace(KEY_OPTION, "unknown option '--api-key'"),
    hint: "an API key is never given on the command line (it would stay in the shell's history): export LISTINGS_API_KEY=<key>, or name the variable that holds it with --api-key-env NAME",
  };
}

/** commander's error text for stderr, worded by wordCommanderError, its hint on a line of its own. */
export function withOptionHints(text: string): string {
  const { text: shown, hint } = wordCommanderError(text);
  if (hint === undefined) return text;
  return `${shown}${shown.endsWith('\n') ? '' : '\n'}${paint.dim('hint')}  ${hint}\n`;
}
