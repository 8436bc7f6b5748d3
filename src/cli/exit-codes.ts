import { EXIT, type ExitCode } from '../run/verdict.js';

/** The exit codes: the contract with CI (README "Exit codes"), decided and described by src/run/verdict.ts. */
export { EXIT, type ExitCode };

/** Thrown by a command to end with a code after it has printed what it had to say. */
export class ExitError extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
