import { shown } from './log-events.js';
import type { ValidateResult } from './validate-run.js';
import type { ValidationError } from './validate-tally.js';

/** One error as `validate --json` gives it; a JSON source's record index goes in `record`, with `line` null. */
export interface ValidateJsonError {
  source: string;
  line: number | null;
  record?: number;
  /** The marketplace of the listing (one row may be several listings, one per marketplace); null when it has none. */
  marketplace: string | null;
  field: string;
  message: string;
}

/** Outside text written `\uXXXX` in the value, as the reports and the log do: `jq -r` shows it, never obeys it. */
function jsonError({ location, issue, marketplace }: ValidationError): ValidateJsonError {
  return {
    source: shown(location.source),
    line: location.line ?? null,
    ...(location.line === undefined && location.record !== undefined ? { record: location.record } : {}),
    marketplace: marketplace === undefined ? null : shown(marketplace),
    field: shown(issue.path),
    message: shown(issue.message),
  };
}

/** The one object `validate --json` prints: the counts, the errors shown (kept with `keepErrors`), and the verdict. */
export function validateJsonOf(result: ValidateResult): Record<string, unknown> {
  const { counts, unread, verdict } = result;
  return {
    rows: counts.rows,
    input_rows: counts.inputRows,
    valid: counts.valid,
    invalid: counts.invalid,
    skipped: counts.skipped,
    ...(counts.notValidated > 0 ? { not_validated: counts.notValidated } : {}),
    errors: result.errors.map(jsonError),
    errors_not_shown: result.errorsNotShown,
    complete: result.complete,
    ...(unread === undefined ? {} : { unread }),
    verdict: { exit_code: verdict.exitCode, why: verdict.why },
  };
}
