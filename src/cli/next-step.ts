import type { NextStep } from '../run/next-step.js';
import { ExitError } from './exit-codes.js';
import { err, paint } from './output.js';
import { reportError } from './report-error.js';

/** The last lines of a run that did not exit 0: what to do next, then the command alone on the last line, to paste. */
export function printNextStep(step: NextStep | null): void {
  if (step === null) return;
  err(`${paint.bold('next')}  ${step.why}:`);
  err(`  ${step.command}`);
}

/**
 * The end of a run: the source error that stopped it (worded as every error is, with its exit code), then the next
 * step, so that the command to paste stays the last line.
 */
export function printRunStop(step: NextStep | null, showStep: boolean, sourceError: unknown): void {
  const code = sourceError === undefined ? undefined : reportError(sourceError);
  if (showStep) printNextStep(step);
  if (code !== undefined) throw new ExitError(code);
}
