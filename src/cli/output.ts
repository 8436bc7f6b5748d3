import chalk, { chalkStderr, type ChalkInstance } from 'chalk';
import { redact, registerEnvironmentSecrets } from '../secrets.js';

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

// The colours chalk writes (SGR: ESC [ digits m), then every control character but tab and LF, and the bidi controls.
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const TERMINAL_UNSAFE = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The last guard before the terminal, whatever a code path forgot to escape: every control character is written out
 * as `\uXXXX` (as `printable` does), tab and LF aside; with `colours`, the colour sequences the tool writes
 * itself pass. So nothing that reaches stdout or stderr can clear the screen, set the title, ring the bell or hide a
 * link, even from a server's message or a catalog's cell that escaped `printable`.
 */
export function terminalSafe(text: string, colours: boolean): string {
  TERMINAL_UNSAFE.lastIndex = 0;
  if (!TERMINAL_UNSAFE.test(text)) return text;
  return text.replace(TERMINAL_UNSAFE, (match) => {
    if (match.length > 1) return colours ? match : `\\u001b${match.slice(1)}`;
    return `\\u${match.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

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

// The lines a CI runner obeys as commands in a step's output. GitHub Actions (actions/runner, ActionCommand.cs): a
// line whose first characters after white space are `::`, and the legacy `##[name]` anywhere in a line. Azure
// Pipelines' `##vso[` and TeamCity's `##teamcity[` have the same form. Leading colour sequences count as space here.
// eslint-disable-next-line no-control-regex -- ESC starts the colour sequences this skips
const LINE_COMMAND = /^((?:\s|\u001b\[[0-9;]*m)*):(?=:)/gm;
const ANYWHERE_COMMAND = /##(?=[A-Za-z]*\[)/g;

/**
 * A line (or lines) no CI runner obeys: a leading `::` is written `\u003a:` and the `#` that opens `##[`,
 * `##vso[` or `##teamcity[` is written `\u0023`, the way every other escaped character is shown. Applied to every line
 * the tool writes, whatever its origin (a file name, a catalog's value, a server's message, a webhook's body), and
 * whether or not `GITHUB_ACTIONS` is set: a step may run the tool in a container without it. The tool's own workflow
 * commands leave through {@link workflowLine}. A JSON line stays valid JSON with the same value (`##[` can only be in a
 * string, where `\u0023` is `#`), and never starts with `:`.
 */
export function runnerSafe(text: string, lineCommands = true): string {
  let safe = text;
  ANYWHERE_COMMAND.lastIndex = 0;
  if (ANYWHERE_COMMAND.test(safe)) safe = safe.replace(ANYWHERE_COMMAND, '\\u0023#');
  if (!lineCommands) return safe;
  LINE_COMMAND.lastIndex = 0;
  if (LINE_COMMAND.test(safe)) safe = safe.replace(LINE_COMMAND, (_match, space: string) => `${space}\\u003a`);
  return safe;
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

/**
 * commander's error text with what it cannot know: an API key is no option (`--api-key`; its value, if written
 * `--api-key=...`, is not repeated), it comes from the environment.
 */
export function withOptionHints(text: string): string {
  const keyOption = /unknown option '--api-key(=[^']*)?'/;
  if (!keyOption.test(text)) return text;
  const hint = `${paint.dim('hint')}  an API key is never given on the command line (it would stay in the shell's history): export LISTINGS_API_KEY=<key>, or name the variable that holds it with --api-key-env NAME\n`;
  return `${text.replace(keyOption, "unknown option '--api-key'")}${text.endsWith('\n') ? '' : '\n'}${hint}`;
}
