import { CommanderError } from 'commander';
import type { FieldIssue } from '../../contract/issues.js';
import { ApiError, ListingsError } from '../../errors.js';
import { JsonNumber, stringifyJson } from '../../json-number.js';
import { printable } from '../../printable.js';
import { exitCodeOfError } from '../../run/verdict.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { out, wordCommanderError } from '../output.js';
import { wordError } from '../report-error.js';

/**
 * What failed: the service refused the listing (`rejected`), the local checks did (`invalid`), the command line or
 * the settings are wrong (`usage`), the service could not be used (`service`), a signal stopped it (`interrupted`),
 * or the tool itself (`internal`). `source` is the CLI's kind for an error reading a file, which create reads none of.
 */
export type CreateFailureKind = 'rejected' | 'invalid' | 'usage' | 'service' | 'source' | 'interrupted' | 'internal';

/** What `create --json` prints when no listing was made: one document whatever failed, for a CI job to read. */
export interface CreateFailure {
  error: {
    kind: CreateFailureKind;
    /** The HTTP status of the service's answer; null when there was none (unreachable, a timeout, nothing sent). */
    status: number | null;
    message: string;
    hint: string | null;
    /** The service's error body, when it answered one (a rejection, a 5xx, a rejected key). */
    body?: unknown;
    /** The fields the local checks refused. */
    issues?: FieldIssue[];
  };
  exit_code: number;
}

/** The listing was refused (by the service, or before sending): exit 1, the failure kept for `--json`. */
export class ListingRefused extends ExitError {
  constructor(readonly failure: CreateFailure) {
    super(EXIT.rowsFailed);
  }
}

/**
 * The service's error body with each of its texts (keys too) written as `message` and the reports write theirs
 * (`printable`): a reader of the document gets an ESC as the text `\u001b`, as from `message`, never the character
 * itself that `jq -r` would hand to a terminal. Bounded: a body nested past 64 levels is kept as text.
 */
function shownBody(value: unknown): unknown {
  if (typeof value === 'string') return printable(value, { lines: false });
  if (Array.isArray(value)) return value.map(shownBody);
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [printable(key, { lines: false }), shownBody(inner)]));
}

/** A listing the service refused (a 4xx that is the listing's fault). */
export function rejected(error: ApiError): ListingRefused {
  return new ListingRefused({ error: { kind: 'rejected', status: error.status, message: error.message, hint: null, body: shownBody(error.body) }, exit_code: EXIT.rowsFailed });
}

/** A listing the local checks refused: nothing was sent. */
export function invalid(issues: FieldIssue[]): ListingRefused {
  return new ListingRefused({ error: { kind: 'invalid', status: null, message: 'the listing is invalid: nothing was sent', hint: null, issues: issues.map(({ path, message }) => ({ path: printable(path, { lines: false }), message: printable(message, { lines: false }) })) }, exit_code: EXIT.rowsFailed });
}

const KIND_OF_ERROR: Record<ListingsError['kind'], CreateFailureKind> = { api: 'service', network: 'service', timeout: 'service', source: 'source', config: 'usage', usage: 'usage' };

/** The failure of whatever ended `create`, with the exit code and the words the CLI's one catch gives it (report-error.ts). */
export function createFailure(error: unknown): CreateFailure {
  if (error instanceof ListingRefused) return error.failure;
  if (error instanceof CommanderError) return commandLineFailure(error);
  if (error instanceof ListingsError) {
    const { message, hint } = wordError(error);
    const status = error instanceof ApiError ? error.status : null;
    const body = error instanceof ApiError && error.body !== undefined ? { body: shownBody(error.body) } : {};
    return { error: { kind: KIND_OF_ERROR[error.kind], status, message: printable(message), hint: hint === undefined ? null : printable(hint), ...body }, exit_code: exitCodeOfError(error) };
  }
  if (error instanceof ExitError) return { error: { kind: 'internal', status: null, message: error.message, hint: null }, exit_code: error.code };
  if (error instanceof Error && error.name === 'AbortError') return { error: { kind: 'interrupted', status: null, message: 'interrupted', hint: null }, exit_code: EXIT.interrupted };
  const message = error instanceof Error ? error.message : String(error);
  return { error: { kind: 'internal', status: null, message: printable(message.slice(0, 8_000)), hint: null }, exit_code: 70 };
}

/**
 * commander's refusal of the command line (an unknown option, a missing argument or value): its message as stderr
 * says it, without its `error: `, an API key given as an option not repeated (wordCommanderError), escaped.
 */
function commandLineFailure(error: CommanderError): CreateFailure {
  const { text, hint } = wordCommanderError(error.message.replace(/^error: /, ''));
  return { error: { kind: 'usage', status: null, message: printable(text), hint: printable(hint ?? 'run with --help for usage') }, exit_code: EXIT.usage };
}

let printed = false;

/**
 * `create --json`'s one document on stdout for a listing not made; once, whoever asks first: the action for what
 * failed in it, the CLI's one catch (main.ts) for what failed before it (argv commander or a flag's check refused).
 */
export function printCreateFailure(error: unknown): void {
  if (printed) return;
  printed = true;
  out(stringifyJson(createFailure(error)));
}
