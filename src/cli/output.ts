import chalk, { chalkStderr, type ChalkInstance } from 'chalk';
import { redact } from '../secrets.js';

// NO_COLOR (https://no-color.org) wins unless FORCE_COLOR asks for colour explicitly.
if (process.env.NO_COLOR && !process.env.FORCE_COLOR) {
  chalk.level = 0;
  chalkStderr.level = 0;
}

/** Colours for stderr-bound text; plain when stderr is not a terminal (unless FORCE_COLOR). */
export const paint: ChalkInstance = chalkStderr;

/** Colours for stdout-bound text, decided by stdout (a pipe gets none). */
export const paintOut: ChalkInstance = chalk;

/** A line of results on stdout. Every line leaves through redact, so a secret can never be printed. */
export function out(line: string): void {
  process.stdout.write(`${redact(line)}\n`);
}

/** A line of diagnostics on stderr. */
export function err(line: string): void {
  process.stderr.write(`${redact(line)}\n`);
}

/** True in CI or when stderr is not a terminal: no spinners, no prompts. */
export function isInteractive(): boolean {
  const ci = process.env.CI;
  return Boolean(process.stderr.isTTY) && (ci === undefined || ci === '' || ci === 'false' || ci === '0');
}
