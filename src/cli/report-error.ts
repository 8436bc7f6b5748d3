import { ListingsError } from '../errors.js';
import { CommanderError } from 'commander';
import { EXIT, ExitError } from './exit-codes.js';
import { err, paint } from './output.js';
import { printable } from '../printable.js';

const CODE_OF_KIND: Record<ListingsError['kind'], number> = {
  api: EXIT.service,
  network: EXIT.service,
  timeout: EXIT.service,
  source: EXIT.source,
  config: EXIT.usage,
  usage: EXIT.usage,
};

/** The one place errors become messages and exit codes. Expected errors never show a stack trace. */
export function reportError(error: unknown): number {
  if (error instanceof ExitError) return error.code;
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT.usage;
  if (error instanceof ListingsError) {
    // A message may quote a server or a catalog: shown, never obeyed.
    err(`${paint.red('error')} ${printable(error.message)}`);
    if (error.hint) err(`${paint.dim('hint')}  ${printable(error.hint)}`);
    return CODE_OF_KIND[error.kind];
  }
  if (error instanceof Error && error.name === 'AbortError') return EXIT.interrupted;
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  err(`${paint.red('internal error')} ${detail}`);
  err('This is a bug in listings; please report it with the command you ran (the API key is masked above).');
  return 70;
}
