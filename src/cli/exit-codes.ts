/** The exit codes: the contract with CI (DESIGN.md). */
export const EXIT = {
  ok: 0,
  rowsFailed: 1,
  usage: 2,
  service: 3,
  source: 4,
  /** An output (report, journal, state) could not be written mid-run: sending stopped (sysexits EX_IOERR). */
  output: 74,
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Thrown by a command to end with a code after it has printed what it had to say. */
export class ExitError extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
