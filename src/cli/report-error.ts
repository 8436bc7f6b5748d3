import { formatLocation, ListingsError, SourceError } from '../errors.js';
import { CommanderError } from 'commander';
import { EXIT, ExitError } from './exit-codes.js';
import { err, paint } from './output.js';
import { printable } from '../printable.js';
import { cliName } from './setting-flags.js';
import { MissingSettingsError } from '../prepare/missing-settings.js';
import { wordMissingSettings } from './missing-settings-text.js';
import { exitCodeOfError } from '../run/verdict.js';

/** The most of an internal error's message and stack shown: enough to report it, whatever it quotes. */
const MAX_DETAIL = 8_000;

/** A typed error's message and hint as the CLI says them: the settings they name, as flags. */
export function wordError(error: ListingsError): { message: string; hint: string | undefined } {
  if (error instanceof MissingSettingsError) return wordMissingSettings(error);
  return error.wordedWith(cliName);
}

/** The one place errors become messages and exit codes. Expected errors never show a stack trace. */
export function reportError(error: unknown): number {
  if (error instanceof ExitError) return error.code;
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT.usage;
  if (error instanceof ListingsError) {
    const { message, hint } = wordError(error);
    // A message may quote a server or a catalog: shown, never obeyed. A source's name, which starts a source
    // error, has its line breaks escaped too, so a file name cannot forge a line of its own.
    const where = error instanceof SourceError ? formatLocation(error.location) : '';
    const shown = where !== '' && message.startsWith(where) ? `${printable(where, { lines: false })}${message.slice(where.length)}` : message;
    err(`${paint.red('error')} ${printable(shown)}`);
    if (hint) err(`${paint.dim('hint')}  ${printable(hint)}`);
    if (debugging()) printDebugDetail(error);
    return exitCodeOfError(error);
  }
  if (error instanceof Error && error.name === 'AbortError') return EXIT.interrupted;
  // A bug's message may quote anything (a server's answer, a cell, a key): escaped here, and masked by err().
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  err(`${paint.red('internal error')} ${printable(detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail)}`);
  err('This is a bug in listings; please report it with the command you ran (the API key is masked above).');
  return 70;
}

/** `--debug` (or LISTINGS_DEBUG=1): expected errors show their stack and cause chain too. */
function debugging(): boolean {
  return process.env.LISTINGS_DEBUG === '1';
}

/** An expected error's stack, then each cause's, escaped and capped like an internal error's. */
function printDebugDetail(error: Error): void {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 8; depth++) {
    const detail = current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : (JSON.stringify(current) ?? typeof current);
    err(`${paint.dim(depth === 0 ? 'debug' : 'caused by')} ${printable(detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail)}`);
    current = current instanceof Error ? current.cause : undefined;
  }
}
