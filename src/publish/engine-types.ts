import type { CreateListingResult, RequestOptions } from '../client/listings-client.js';
import type { JournalEntry } from './journal.js';
import type { PreparedRow } from '../prepare/types.js';
import type { RetryBudget } from './retry-budget.js';
import type { RetryPolicy } from './retry-policy.js';
import type { Shard } from './shard.js';
import type { ListingState } from './listing-state.js';
import type { ConcurrencyLimit } from './flow/concurrency-limit.js';
import type { PushbackCounts } from './flow/pushback-counts.js';
import type { FailureKind } from '../client/classify.js';
import type { RowOutcome } from './outcome.js';

/**
 * What a run tells an observer ({@link PublishOptions.onEvent}) as it goes: facts, never text to print. `index` is
 * the row's 0-based position in the input; `attempt` counts from 1; times are milliseconds.
 */
export type EngineEvent =
  /** An answer (or a failure to get one) to one request. `status` is the HTTP status when there was one. */
  | { type: 'answer'; index: number; attempt: number; status: number | undefined; kind: 'ok' | FailureKind; ms: number }
  /** The row is sent again after `delayMs`; `reason` is the failed attempt's kind (and status). */
  | { type: 'retry'; index: number; attempt: number; delayMs: number; reason: string }
  /** The concurrency limit changed; `reason` is the answer that changed it (`ok`, `overloaded`, `throttled`), or `noise`: cuts undone, since slowing down did not lower the service's share of 429s and 503s. */
  | { type: 'limit'; limit: number; previous: number; reason: string }
  /** The send pace changed after pushback (`noise`: a cut undone): `rate` in requests/s (undefined: no pace); `holdMs` when sending is held. */
  | { type: 'pace'; rate: number | undefined; previous: number | undefined; reason: 'throttled' | 'overloaded' | 'noise'; holdMs?: number }
  /** The breaker changed state (open: the service looks down, nothing is sent but a probe). */
  | { type: 'breaker'; state: 'closed' | 'open' | 'half-open'; previous: 'closed' | 'open' | 'half-open' }
  /** The run stops early: the end it will report. */
  | { type: 'stopped'; end: Exclude<PublishEnd, { kind: 'completed' }> };

/** Receives a run's {@link EngineEvent}s, synchronously; it must not throw, and should be quick. */
export type EngineObserver = (event: EngineEvent) => void;

/** What the engine needs of a client: the one POST, with a body it serialised and hashed itself. */
export interface ListingSender {
  postListingJson(body: string, options: RequestOptions): Promise<CreateListingResult>;
  /** End every request in flight (on abandon); without it, abandon only stops the run. */
  destroy?(): Promise<void>;
  /** Open connections ahead, up to `count` in all: the window is about to grow to that many (a ListingsClient does). */
  prepareConnections?(count: number): void;
}

/** Where the engine records each row that reached the service, as it finishes. */
export interface JournalSink {
  record(entry: JournalEntry): void;
}

/** Time, timers and chance, injectable so tests need not wait. */
export interface EngineClock {
  /** Wall-clock milliseconds (Retry-After dates are compared against it). */
  now: () => number;
  /** Monotonic milliseconds for latencies, pacing and timers. Default: `now`. */
  monotonic?: () => number;
  setTimeout: (callback: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
  /** Numbers in [0, 1) for backoff jitter. */
  random: () => number;
}

/** Options of {@link publishRows}. Only `sender` (or `dryRun`) is required. */
export interface PublishOptions {
  /** Sends one request; required unless `dryRun`. */
  sender?: ListingSender;
  /**
   * A fixed number of requests in flight (`--concurrency`). Without it the limit is learned from the service's
   * latency and pushback, from 4 up to `maxConcurrency`.
   */
  concurrency?: number;
  /** The ceiling of the learned concurrency limit (`--max-concurrency`). Unset: 512, or up to 2048 on a service slower than 512 ms. */
  maxConcurrency?: number;
  /** Another concurrency policy altogether; replaces `concurrency` and `maxConcurrency`. */
  limiter?: ConcurrencyLimit;
  /** Most requests started per second (`--rate`): a ceiling over the pace learned from 429s. */
  rate?: number;
  /**
   * How long the service may accept nothing at all (only pushback, timeouts or no connection) before the run stops
   * as `systemic`. Default 60,000 ms.
   */
  giveUpAfterMs?: number;
  /** Backoff, attempts and the Retry-After cap. Default DEFAULT_RETRY_POLICY. */
  retryPolicy?: RetryPolicy;
  /** The run-wide retry allowance. Default `new RetryBudget()`. */
  retryBudget?: RetryBudget;
  /** Stop sending once this many rows have failed; the rest are `not_attempted`. */
  maxErrors?: number;
  /** Everything but the network: rows that would be sent are `validated`. */
  dryRun?: boolean;
  /**
   * Only rows whose SKU falls in this shard are sent; the others are `skipped` (`other shard`). The key is the SKU
   * alone, so every marketplace of one SKU is in the same shard.
   */
  shard?: Shard;
  /**
   * `--changed-only`: (marketplace, SKU) -> content hash of the last accepted request. Rows whose hash matches are
   * `skipped` (`unchanged`); the others carry the reason `new` or `changed`. The engine updates the state for every
   * row the service accepts; the caller saves it.
   */
  changedOnly?: ListingState;
  /**
   * `--resume`: the `publishedKey(sku, hash)` of rows already published; such rows are `skipped` (`already
   * published`). The content hash covers the marketplace, so the key tells the listings of one SKU apart.
   */
  alreadyPublished?: ReadonlySet<string>;
  /** `--retry-failed`: true for the rows to send again; every other row is `skipped` (`not selected for retry`). */
  retryOnly?: (row: PreparedRow) => boolean;
  /** Records every row that reached the service, as it finishes. */
  journal?: JournalSink;
  /** Stop reading and sending; in-flight requests finish; rows read but not sent become `not_attempted`. */
  stop?: AbortSignal;
  /** Stop, and cut the requests in flight through `sender.destroy()` (they become `failed`, reason `interrupted`). */
  abandon?: AbortSignal;
  /** Rows finished but not yet yielded, at most (they wait for an earlier row). Default max(4096, 256 x concurrency). */
  reorderBuffer?: number;
  /**
   * The source is a live stream whose next item may be long in coming (a Kafka topic): outcomes already finished
   * are handed on while it waits, not when the next item arrives. A file or URL source does not need it.
   */
  live?: boolean;
  /**
   * False: outcomes are handed on as they finish, not in input order, so one row in long retries holds back no
   * other (a stream commits by offset and needs no order). Default true.
   */
  ordered?: boolean;
  clock?: EngineClock;
  /**
   * Told of each row's outcome as soon as it is known, in the order rows settle (its `settledAtMs` set): a row
   * waiting for a retry holds back the iteration, in input order, but not this. For progress counts and rates;
   * synchronous, it must not throw, and should be quick.
   */
  onSettled?: (outcome: RowOutcome) => void;
  /**
   * Told of each answer, retry, limit or pace change, breaker change and early stop, for logs. Without it no event
   * is built: the run costs nothing more.
   */
  onEvent?: EngineObserver;
}

/** Why a run ended. Anything but `completed` means some rows were left `not_attempted`. */
export type PublishEnd =
  | { kind: 'completed' }
  /** The stop (or abandon) signal fired. */
  | { kind: 'interrupted' }
  /** `maxErrors` rows failed. */
  | { kind: 'max-errors'; failed: number }
  /**
   * The service cannot be used by this run: key rejected, endpoint not found, unreachable, hung, or accepting
   * nothing for `giveUpAfterMs`. `reason` says which in a few words; `hint` what to check.
   */
  | { kind: 'systemic'; error: unknown; requests: number; reason: string; hint?: string }
  /** The source failed part-way; iterating the run throws this error after the last outcome. */
  | { kind: 'source'; error: unknown };

/** Counts of a run in progress, for progress displays; the pushback counts are requests. */
export interface EngineStats extends PushbackCounts {
  /** Rows read from the input so far. */
  read: number;
  /** Requests in flight now. */
  inFlight: number;
  /** The concurrency limit now. */
  window: number;
  /** The highest concurrency limit reached. */
  peakWindow: number;
  /** The most requests in flight at once. */
  peakInFlight: number;
  /** The send rate the run keeps to now (requests/s), or undefined while nothing limits it. */
  pace: number | undefined;
  /** Rows waiting to be sent again. */
  waitingRetry: number;
  /** Requests sent, retries included. */
  requests: number;
  /** Retries sent. */
  retries: number;
  /** Rows failed so far. */
  failed: number;
}
