import { ApiError, NetworkError, TimeoutError } from '../errors.js';
import { classifyFailure, isPushbackKind, isRetryable } from '../client/classify.js';
import { parseRetryAfter } from './retry-after.js';

/** How hard the engine tries one row. */
export interface RetryPolicy {
  /** Attempts per row, counting the first. 1 means never retry. */
  maxAttempts: number;
  /** The backoff ceiling of the first retry; it doubles with each further attempt. */
  baseDelayMs: number;
  /** The backoff ceiling never grows past this. */
  maxDelayMs: number;
  /** The longest `Retry-After` the run will sleep for on one row; see {@link decideRetry}. */
  maxRetryAfterMs: number;
  /**
   * Attempts per row that the service may answer with pushback (429, 503, 502/504, a timeout). They do not count
   * towards `maxAttempts` (a busy service is not a failing one); this only bounds a row the service never takes.
   */
  maxPushbacks: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
  maxPushbacks: 30,
});

/** What to do after a failed attempt. `pushback` retries spend nothing of the run's retry budget. */
export type RetryDecision = { retry: true; delayMs: number; pushback: boolean } | { retry: false; reason: string };

/** Pushback: the service is busy (429, 503, 502/504) or slow (a timeout), not failing. */
export function isPushback(error: unknown): boolean {
  return isPushbackKind(classifyFailure(error));
}

export interface RetryInput {
  /** What the failed attempt threw. */
  error: unknown;
  /** Attempts made so far for this row that ended in a real error (not pushback), the failed one included. */
  attempt: number;
  /** Attempts made so far for this row that the service answered with pushback, the failed one included. */
  pushbacks?: number;
  policy: RetryPolicy;
  /** The current time, for `Retry-After` given as an HTTP date. */
  nowMs: number;
  /** A source of numbers in [0, 1), `Math.random` in production. */
  random: () => number;
}

/**
 * Decide whether a row is sent again, and after how long. The checks, in order:
 *
 * 1. Only network errors, timeouts and HTTP 408, 425, 429, 500, 502, 503 and 504 are retried; any other 4xx (or
 *    any other error) means the same request would fail again.
 * 2. A row gets at most `maxAttempts` attempts that end in a real error, the first one included; pushback (429,
 *    503, 502/504, timeouts) is counted apart, up to `maxPushbacks`, since a busy service is not a failing one.
 * 3. Backoff is exponential with full jitter: `random() * min(maxDelayMs, baseDelayMs * 2^(n - 1))`, n counting
 *    attempts of the same sort, so retries of many rows spread out instead of arriving together.
 * 4. A `Retry-After` header (seconds or an HTTP date) is honoured: the delay is the larger of it and the backoff.
 *    **Above the cap:** when the service asks for more than `maxRetryAfterMs` (60 s by default), the row is not
 *    retried now: it fails with the reason `service asked to wait 120 s, above the 60 s cap`, so a run never sleeps
 *    for minutes on one row; `--retry-failed` or `--resume` sends it again later. A `Retry-After` that cannot be
 *    read is ignored.
 *
 * Pure: the clock and the random source are inputs.
 */
export function decideRetry(input: RetryInput): RetryDecision {
  const { error, policy } = input;
  if (!isRetryable(error)) return { retry: false, reason: `${describe(error)} is not retried` };
  const pushback = isPushback(error);
  const pushbacks = input.pushbacks ?? 0;
  const n = pushback ? pushbacks : input.attempt;
  if (pushback ? pushbacks >= policy.maxPushbacks : input.attempt >= policy.maxAttempts) {
    const total = input.attempt + pushbacks;
    const why = pushback ? ` (the service kept answering ${describe(error)})` : '';
    return { retry: false, reason: `gave up after ${total} ${total === 1 ? 'attempt' : 'attempts'}${why}` };
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (Math.max(1, n) - 1));
  const backoff = Math.floor(input.random() * ceiling);
  const asked = error instanceof ApiError ? parseRetryAfter(error.retryAfter, input.nowMs) : undefined;
  if (asked === undefined) return { retry: true, delayMs: backoff, pushback };
  if (asked > policy.maxRetryAfterMs) {
    return {
      retry: false,
      reason: `service asked to wait ${seconds(asked)} s, above the ${seconds(policy.maxRetryAfterMs)} s cap`,
    };
  }
  return { retry: true, delayMs: Math.max(asked, backoff), pushback };
}

function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return `HTTP ${error.status}`;
  if (error instanceof NetworkError) return 'a network error';
  if (error instanceof TimeoutError) return 'a timeout';
  return error instanceof Error ? `an unexpected ${error.name}` : 'an unexpected error';
}
