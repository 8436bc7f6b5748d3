import type { RowOutcome } from '../publish/outcome.js';
import { errorClass } from './summary.js';

/**
 * The one grouping of row errors, for every report that shows them by kind (the HTML report, the CI step summary):
 * counted as they stream past, in memory bounded by the number of kinds kept, whatever the number of rows.
 */

/** Rows with the same error. */
export interface ErrorGroup<First> {
  /** What the rows' errors are counted under: see {@link causeOf}. */
  cause: string;
  /** The message of the first of them. */
  message: string;
  /** True when some rows had another message that was taken for the same error (another number, another value). */
  varies: boolean;
  rows: number;
  /** What the report keeps of the first of them: where it is. */
  first: First;
}

/**
 * What a row's error is counted under: its class in `errors_by_status` (the HTTP status, `network`, `timeout`,
 * `invalid`), else its outcome (`not_attempted`).
 */
export function causeOf(o: RowOutcome): string {
  return errorClass(o) ?? o.outcome;
}

/**
 * What makes two messages the same error: numbers, quoted values (in double quotes, or single quotes that are not an
 * apostrophe) and URLs aside, so `"images/a.jpg" is not a URL` and `"images/b.jpg" is not a URL` are one line with a
 * count, as are `image URL 'http://x/1.jpg' is not reachable` and `... 'http://x/2.jpg' ...`, and `gave up after 3
 * attempts` and `... 5 attempts`.
 */
export function groupKey(message: string): string {
  return message
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/(?<![\p{L}\p{N}])'[^'\n]*'(?![\p{L}\p{N}])/gu, "'…'")
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*[^\s"'<>.,:;)]/gi, '…')
    .replace(/\d+(?:\.\d+)?/g, '#');
}

/** Row errors by cause and message; `sameError` says which messages are one error (the message itself unless given). */
export class ErrorGroups<First> {
  /** Rows whose kind of error came after `max` others: counted, not grouped. */
  ungrouped = 0;
  readonly #groups = new Map<string, ErrorGroup<First>>();

  constructor(
    readonly max: number,
    private readonly sameError: (message: string) => string = (message) => message,
  ) {}

  /** Count one row; false when its kind of error came after `max` others, and it was only counted in `ungrouped`. */
  add(cause: string, message: string, first: First): boolean {
    const key = `${cause}\u0000${this.sameError(message)}`;
    const group = this.#groups.get(key);
    if (group !== undefined) {
      group.rows++;
      if (!group.varies && group.message !== message) group.varies = true;
      return true;
    }
    if (this.#groups.size >= this.max) {
      this.ungrouped++;
      return false;
    }
    this.#groups.set(key, { cause, message, varies: false, rows: 1, first });
    return true;
  }

  /** The kinds of error, most rows first (ties in the order first seen). */
  groups(): ErrorGroup<First>[] {
    return [...this.#groups.values()].sort((a, b) => b.rows - a.rows);
  }
}
