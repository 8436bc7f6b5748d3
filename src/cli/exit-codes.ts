import { EXIT, type ExitCode } from '../run/verdict.js';

/** The exit codes: the contract with CI (README "Exit codes"), decided for a run by src/run/verdict.ts. */
export { EXIT, type ExitCode };

/** What each code means after `listings publish`, for its help: a code added to EXIT must be described here. */
export const PUBLISH_EXITS: Record<ExitCode, string> = {
  0: 'all published',
  1: 'some failed or invalid',
  2: 'usage',
  3: 'service unusable',
  4: 'source unreadable',
  74: 'an output (report, journal, state) could not be written',
  130: 'interrupted',
};

/** `exit 0 all published, 1 some failed or invalid, ...`: a command's codes as its help lists them, in order. */
export function exitCodesText(meanings: Partial<Record<ExitCode, string>>): string {
  const codes = Object.values(EXIT).filter((code) => meanings[code] !== undefined);
  return `exit ${codes.map((code) => `${code} ${meanings[code]}`).join(', ')}`;
}

/** Thrown by a command to end with a code after it has printed what it had to say. */
export class ExitError extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
