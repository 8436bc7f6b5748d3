import type { NextStep } from '../run/next-step.js';
import { err, paint } from './output.js';

/** The last lines of a run that did not exit 0: what to do next, then the command alone on the last line, to paste. */
export function printNextStep(step: NextStep | null): void {
  if (step === null) return;
  err(`${paint.bold('next')}  ${step.why}:`);
  err(`  ${step.command}`);
}
