import type { FieldIssue } from '../contract/issues.js';
import type { Location } from '../errors.js';
import type { PreparedRow } from '../prepare/types.js';

/** One error a validation found: where (the row and, when it has one, the listing's marketplace) and what. */
export interface ValidationError {
  location: Location;
  /** The marketplace of the listing (one row may be several listings, one per marketplace), when it has one. */
  marketplace?: string;
  issue: FieldIssue;
}

/** What a validation's rows came to. `rows` counts listings; every one is valid, invalid, skipped or not validated. */
export interface ValidateCounts {
  rows: number;
  /** The input rows read, as the person reading the file counts them (a preset may fold several into one listing). */
  inputRows: number;
  valid: number;
  invalid: number;
  /** Rows that are not listings by design (a WooCommerce grouped product): neither valid nor errors. */
  skipped: number;
  /** Rows read after the error limit stopped the validation: reported `not_attempted`. */
  notValidated: number;
}

/** The counts of a validation, and its errors: the first `shown` told to `onError` (and kept when `keep`), the rest counted. */
export class ValidateTally {
  readonly counts: ValidateCounts = { rows: 0, inputRows: 0, valid: 0, invalid: 0, skipped: 0, notValidated: 0 };
  readonly errors: ValidationError[] = [];
  shown = 0;
  notShown = 0;

  constructor(
    private readonly shownAtMost: number,
    private readonly keep: boolean,
    private readonly onError: ((error: ValidationError) => void) | undefined,
  ) {}

  /** A listing as the preparer judged it. */
  add(row: PreparedRow): void {
    this.#read(row.rows);
    if (row.kind === 'ready') this.counts.valid++;
    else if (row.kind === 'skipped') this.counts.skipped++;
    else {
      this.counts.invalid++;
      for (const issue of row.issues) this.#error(row, issue);
    }
  }

  /** A listing read once the validation had stopped. */
  addNotValidated(rows: number | undefined): void {
    this.#read(rows);
    this.counts.notValidated++;
  }

  #read(rows: number | undefined): void {
    this.counts.rows++;
    this.counts.inputRows += rows ?? 1;
  }

  #error(row: Extract<PreparedRow, { kind: 'invalid' }>, issue: FieldIssue): void {
    if (this.shown >= this.shownAtMost) {
      this.notShown++;
      return;
    }
    this.shown++;
    const error: ValidationError = { location: row.location, ...(row.marketplace === undefined ? {} : { marketplace: row.marketplace }), issue };
    if (this.keep) this.errors.push(error);
    this.onError?.(error);
  }
}
