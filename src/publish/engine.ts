import { ApiError, ListingsError } from '../errors.js';
import { isRetryable, isSystemic } from '../client/classify.js';
import type { PreparedRow } from '../prepare/types.js';
import type { CreateListingResult } from '../client/listings-client.js';
import type { OutcomeKind, RowOutcome } from './outcome.js';
import { AdaptiveWindow } from './adaptive-window.js';
import { RateLimiter } from './rate-limiter.js';
import { RetryBudget } from './retry-budget.js';
import { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy } from './retry-policy.js';
import { parseRetryAfter } from './retry-after.js';
import { contentHash, idempotencyKeyForHash } from './idempotency.js';
import { inShard } from './shard.js';
import { publishedKey } from './journal.js';
import { DueQueue } from './due-queue.js';
import type { EngineClock, EngineStats, ListingSender, PublishEnd, PublishOptions } from './engine-types.js';

type ReadyRow = Extract<PreparedRow, { kind: 'ready' }>;

/** A row on its way to the service. */
interface Task {
  index: number;
  row: ReadyRow;
  body: string;
  hash: string;
  key: string;
  /** `new` or `changed` under --changed-only. */
  reason: string | undefined;
  attempts: number;
  startedAt: number;
  /** When a retry may be sent. */
  dueAt: number;
  lastError: unknown;
}

const SYSTEM_CLOCK: EngineClock = {
  now: Date.now,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: Math.random,
};

/**
 * Failures in a row, with the retry budget spent, after which the service counts as unreachable. One refused
 * retry alone is not enough: a busy run may spend the budget on a flaky but working service.
 */
const UNREACHABLE_AFTER = 5;

const REASON: Record<Exclude<PublishEnd['kind'], 'completed'>, string> = {
  interrupted: 'interrupted',
  'max-errors': 'max errors reached',
  systemic: 'service unusable',
  source: 'source unreadable',
};

/**
 * Publish prepared rows: exactly one outcome per input row, in input order. Reading pauses while the in-flight
 * window or the reorder buffer is full, so memory stays flat however long the input. Iterate the returned run;
 * afterwards `run.end` says why it ended. A source that fails to read is rethrown after the outcomes of every row
 * read before it.
 *
 * With `prepare`, the input is anything (drafts, say) that `prepare` turns into a prepared row as it is read: one
 * async hop less per row than a separate mapping stage.
 */
export function publishRows(rows: AsyncIterable<PreparedRow>, options?: PublishOptions): PublishRun;
export function publishRows<T>(rows: AsyncIterable<T>, options: PublishOptions, prepare: (item: T) => PreparedRow): PublishRun;
export function publishRows<T>(rows: AsyncIterable<T>, options: PublishOptions = {}, prepare?: (item: T) => PreparedRow): PublishRun {
  return new PublishRun(rows, options, prepare as ((item: unknown) => PreparedRow) | undefined);
}

/** One publishing run: an async iterable of outcomes plus live counts. Iterate it once. */
export class PublishRun implements AsyncIterable<RowOutcome> {
  readonly #rows: AsyncIterable<unknown>;
  readonly #prepare: ((item: unknown) => PreparedRow) | undefined;
  readonly #sender: ListingSender | undefined;
  readonly #options: PublishOptions;
  readonly #clock: EngineClock;
  readonly #policy: RetryPolicy;
  readonly #budget: RetryBudget;
  readonly #window: AdaptiveWindow;
  readonly #limiter: RateLimiter | undefined;

  /** Finished outcomes not yet yielded, by index modulo the capacity. */
  readonly #slots: (RowOutcome | undefined)[];
  readonly #capacity: number;
  #head = 0;
  #read = 0;
  #sourceDone = false;
  /**
   * After a systemic failure or --max-errors the rest of the input is still read, each row `not_attempted`, so the
   * report lists every row (and `--retry-failed` finds them all); an interrupt stops reading at once.
   */
  #draining = false;
  /**
   * Rows read and prepared ahead, waiting for room in the window (reading pauses while it is full). When an answer
   * frees a slot, the next request leaves at once; reading and preparing rows happens after the answers at hand
   * are handled, off the path between an answer and the next request.
   */
  readonly #ready: Task[] = [];
  #readyHead = 0;
  readonly #readAhead: number;
  #wakeScheduled = false;
  readonly #retries = new DueQueue<Task>();
  #inFlight = 0;
  #requests = 0;
  #retriesSent = 0;
  #failed = 0;
  #unavailableInARow = 0;
  #pauseUntil = 0;
  /** The rate limiter's slot reserved for the next send, when it had to wait. */
  #rateReadyAt: number | undefined;
  #stopping: Exclude<PublishEnd, { kind: 'completed' }> | undefined;
  #timer: unknown;
  #timerAt = Infinity;
  #wake: (() => void) | undefined;
  /** An error thrown where no row could carry it; iteration rethrows it. */
  #fatal: unknown;
  #started = false;
  readonly #onStop = (): void => {
    this.#draining = false;
    this.#stop({ kind: 'interrupted' });
  };
  readonly #onAbandon = (): void => {
    this.#onStop();
    // Cutting the connections ends every request in flight at once, at no cost per request while none is cut.
    this.#sender?.destroy?.().catch(() => undefined);
  };
  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    try {
      this.#dispatch();
    } catch (error) {
      this.#crash(error);
    }
    this.#notify();
  };

  constructor(rows: AsyncIterable<unknown>, options: PublishOptions, prepare: ((item: unknown) => PreparedRow) | undefined) {
    this.#rows = rows;
    this.#prepare = prepare;
    this.#options = options;
    this.#sender = options.sender;
    if (!options.dryRun && this.#sender === undefined) throw new TypeError('publishRows: a sender is required unless dryRun');
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#policy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    this.#budget = options.retryBudget ?? new RetryBudget();
    const concurrency = options.concurrency ?? 16;
    this.#window = new AdaptiveWindow(concurrency);
    this.#readAhead = concurrency;
    this.#limiter = options.rate === undefined ? undefined : new RateLimiter(options.rate, this.#clock.now);
    this.#capacity = Math.max(1, options.reorderBuffer ?? Math.max(4096, concurrency * 256));
    this.#slots = new Array<RowOutcome | undefined>(this.#capacity).fill(undefined);
  }

  /** Why the run ended; `completed` until it has been stopped. */
  get end(): PublishEnd {
    return this.#stopping ?? { kind: 'completed' };
  }

  stats(): EngineStats {
    return {
      read: this.#read,
      inFlight: this.#inFlight,
      window: this.#window.limit,
      waitingRetry: this.#retries.size,
      requests: this.#requests,
      retries: this.#retriesSent,
      failed: this.#failed,
    };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RowOutcome, void, undefined> {
    if (this.#started) throw new Error('a PublishRun can be iterated only once');
    this.#started = true;
    const { stop, abandon } = this.#options;
    stop?.addEventListener('abort', this.#onStop);
    abandon?.addEventListener('abort', this.#onAbandon);
    if (abandon?.aborted) this.#onAbandon();
    else if (stop?.aborted) this.#onStop();
    const source = this.#rows[Symbol.asyncIterator]();
    let sourceError: unknown;
    try {
      for (;;) {
        if (this.#fatal !== undefined) throw this.#fatal as Error;
        let outcome: RowOutcome | undefined;
        while (this.#head < this.#read && (outcome = this.#slots[this.#head % this.#capacity]) !== undefined) {
          this.#slots[this.#head % this.#capacity] = undefined;
          this.#head++;
          yield outcome;
        }
        const readingOver = this.#sourceDone || (this.#stopping !== undefined && !this.#draining);
        if (readingOver && this.#head === this.#read) break;
        if (!readingOver && this.#readyCount() < this.#readAhead && this.#read - this.#head < this.#capacity) {
          let next: IteratorResult<unknown>;
          try {
            next = await source.next();
          } catch (error) {
            this.#sourceDone = true;
            // A read aborted by the stop signal is how a stopped source ends, not a failure.
            if (this.#options.stop?.aborted !== true) {
              sourceError = error;
              this.#stop({ kind: 'source', error });
            }
            continue;
          }
          if (next.done === true) this.#sourceDone = true;
          else this.#accept(this.#prepare === undefined ? (next.value as PreparedRow) : this.#prepare(next.value));
          continue;
        }
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      stop?.removeEventListener('abort', this.#onStop);
      abandon?.removeEventListener('abort', this.#onAbandon);
      // A consumer that leaves early ends the run: nothing more is sent.
      if (this.#head < this.#read || !this.#sourceDone) this.#stop({ kind: 'interrupted' });
      this.#clearTimer();
      if (!this.#sourceDone) await source.return?.();
    }
    // The outcomes of every row read have been yielded; the source's failure still surfaces.
    if (sourceError !== undefined) throw sourceError as Error;
  }

  /** Decide what to do with one row read from the input. */
  #accept(row: PreparedRow): void {
    const index = this.#read++;
    if (this.#stopping !== undefined) {
      this.#finish(index, unsent(index, row, 'not_attempted', REASON[this.#stopping.kind]));
      return;
    }
    if (row.kind === 'skipped') {
      this.#skip(index, row, row.reason);
      return;
    }
    const { shard, retryOnly, alreadyPublished, changedOnly } = this.#options;
    if (shard !== undefined && !(row.sku === undefined ? shard.index === 1 : inShard(row.sku, shard))) {
      this.#skip(index, row, 'other shard');
      return;
    }
    if (retryOnly !== undefined && !retryOnly(row)) {
      this.#skip(index, row, 'not selected for retry');
      return;
    }
    if (row.kind === 'invalid') {
      const error = row.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      const outcome = unsent(index, row, 'invalid', undefined);
      outcome.error = error;
      outcome.issues = row.issues;
      this.#finish(index, outcome);
      return;
    }
    const needsHash = !this.#options.dryRun || alreadyPublished !== undefined || changedOnly !== undefined;
    const body = needsHash ? JSON.stringify(row.request) : '';
    const hash = needsHash ? contentHash(body) : '';
    if (alreadyPublished?.has(publishedKey(row.sku, hash))) {
      this.#skip(index, row, 'already published');
      return;
    }
    let reason: string | undefined;
    if (changedOnly !== undefined) {
      const previous = changedOnly.get(row.sku);
      if (previous === hash) {
        this.#skip(index, row, 'unchanged');
        return;
      }
      reason = previous === undefined ? 'new' : 'changed';
    }
    if (this.#options.dryRun) {
      const outcome = unsent(index, row, 'validated', reason);
      if ('payload' in row.request) outcome.title = row.request.payload.title;
      this.#finish(index, outcome);
      return;
    }
    this.#ready.push({ index, row, body, hash, key: idempotencyKeyForHash(hash), reason, attempts: 0, startedAt: 0, dueAt: 0, lastError: undefined });
    this.#dispatch();
  }

  #skip(index: number, row: PreparedRow, reason: string): void {
    this.#finish(index, unsent(index, row, 'skipped', reason));
  }

  #finish(index: number, outcome: RowOutcome): void {
    this.#slots[index % this.#capacity] = outcome;
  }

  /** Send what may be sent now: due retries first (they hold up the reorder buffer), then the pending row. */
  #dispatch(): void {
    if (this.#stopping !== undefined) return;
    const now = this.#clock.now();
    while (this.#inFlight < this.#window.limit) {
      const retry = this.#retries.peekDue(now);
      if (retry === undefined && this.#readyCount() === 0) break;
      if (this.#pauseUntil > now) {
        this.#armTimer(this.#pauseUntil);
        return;
      }
      if (this.#limiter !== undefined) {
        this.#rateReadyAt ??= now + this.#limiter.delayMs();
        if (this.#rateReadyAt > now) {
          this.#armTimer(this.#rateReadyAt);
          return;
        }
        this.#rateReadyAt = undefined;
      }
      if (retry !== undefined) {
        this.#retries.pop();
        this.#send(retry, now);
      } else {
        this.#send(this.#takeReady(), now);
        this.#notify();
      }
    }
    const nextDue = this.#retries.nextDueAt();
    if (nextDue !== undefined && nextDue > now) this.#armTimer(nextDue);
  }

  #send(task: Task, now: number): void {
    const sender = this.#sender as ListingSender;
    this.#inFlight++;
    this.#requests++;
    if (task.attempts++ === 0) {
      task.startedAt = now;
      this.#budget.recordRequest();
    } else {
      this.#retriesSent++;
    }
    let answer: Promise<CreateListingResult>;
    try {
      answer = sender.postListingJson(task.body, { idempotencyKey: task.key });
    } catch (error) {
      answer = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    answer.then(
      (result) => {
        try {
          this.#succeeded(task, result.status, result.listing.status, result.listing.title);
        } catch (error) {
          this.#crash(error);
        }
      },
      (error: unknown) => {
        try {
          this.#failedAttempt(task, error);
        } catch (crash) {
          this.#crash(crash);
        }
      },
    );
  }

  /** A bug (or a journal that throws) in a callback: the row can never finish, so the run ends with the error. */
  #crash(error: unknown): void {
    this.#fatal ??= error;
    this.#stop({ kind: 'interrupted' });
  }

  #succeeded(task: Task, status: number, listingStatus: string, title: string): void {
    this.#inFlight--;
    this.#unavailableInARow = 0;
    this.#window.onSuccess();
    const { row } = task;
    const outcome: RowOutcome = {
      index: task.index,
      location: row.location,
      sku: row.sku,
      outcome: 'published',
      httpStatus: status,
      listingStatus,
      title,
      attempts: task.attempts,
      durationMs: this.#clock.now() - task.startedAt,
    };
    if (task.reason !== undefined) outcome.reason = task.reason;
    this.#finish(task.index, outcome);
    this.#options.changedOnly?.set(row.sku, task.hash);
    this.#options.journal?.record({ index: task.index, sku: row.sku, hash: task.hash, outcome: 'published', status });
    this.#dispatch();
    this.#notify();
  }

  #failedAttempt(task: Task, error: unknown): void {
    this.#inFlight--;
    task.lastError = error;
    const now = this.#clock.now();
    if (this.#options.abandon?.aborted) {
      task.lastError = new Error('abandoned in flight: the service may or may not have received it');
      this.#fail(task, 'interrupted');
    } else if (isSystemic(error)) {
      this.#stop({ kind: 'systemic', error, requests: this.#requests });
      this.#fail(task, describeSystemic(error));
    } else {
      const throttled = error instanceof ApiError && error.status === 429;
      const retryable = isRetryable(error);
      if (throttled) this.#window.onThrottle();
      else if (retryable) this.#window.onFailure();
      this.#unavailableInARow = retryable && !throttled ? this.#unavailableInARow + 1 : 0;
      const decision = decideRetry({ error, attempt: task.attempts, policy: this.#policy, nowMs: now, random: this.#clock.random });
      if (this.#stopping !== undefined) {
        this.#fail(task, REASON[this.#stopping.kind]);
      } else if (!decision.retry) {
        this.#fail(task, decision.reason);
      } else if (!this.#budget.tryAcquire()) {
        if (this.#unavailableInARow >= UNREACHABLE_AFTER) this.#stop({ kind: 'systemic', error, requests: this.#requests });
        this.#fail(task, 'retry budget spent');
      } else {
        if (throttled) this.#pauseFor(error, now);
        task.dueAt = now + decision.delayMs;
        this.#retries.push(task, task.dueAt);
      }
    }
    this.#dispatch();
    this.#notify();
  }

  /** A 429 that says when to come back holds back every request until then, not just this row's retry. */
  #pauseFor(error: ApiError, now: number): void {
    const asked = parseRetryAfter(error.retryAfter, now);
    if (asked !== undefined && asked <= this.#policy.maxRetryAfterMs) this.#pauseUntil = Math.max(this.#pauseUntil, now + asked);
  }

  #fail(task: Task, reason: string): void {
    const { row } = task;
    const error = task.lastError;
    const outcome: RowOutcome = {
      index: task.index,
      location: row.location,
      sku: row.sku,
      outcome: 'failed',
      reason,
      attempts: task.attempts,
      durationMs: this.#clock.now() - task.startedAt,
      error: error instanceof Error ? error.message : String(error),
    };
    if (error instanceof ApiError) outcome.httpStatus = error.status;
    if (error instanceof ListingsError) outcome.errorKind = error.kind;
    this.#finish(task.index, outcome);
    this.#failed++;
    const status = error instanceof ApiError ? { status: error.status } : {};
    this.#options.journal?.record({ index: task.index, sku: row.sku, hash: task.hash, outcome: 'failed', ...status });
    const { maxErrors } = this.#options;
    if (maxErrors !== undefined && this.#failed >= maxErrors && this.#stopping === undefined) {
      this.#stop({ kind: 'max-errors', failed: this.#failed });
    }
  }

  /** End the run early: nothing more is read or sent; in-flight requests finish unless abandoned. */
  #stop(end: Exclude<PublishEnd, { kind: 'completed' }>): void {
    if (this.#stopping === undefined) {
      this.#stopping = end;
      this.#draining = end.kind === 'systemic' || end.kind === 'max-errors';
    }
    const reason = REASON[this.#stopping.kind];
    while (this.#readyCount() > 0) {
      const task = this.#takeReady();
      this.#finish(task.index, unsent(task.index, task.row, 'not_attempted', reason));
    }
    // Rows waiting for a retry were sent and failed: they end as failed, with their last error.
    for (let task = this.#retries.pop(); task !== undefined; task = this.#retries.pop()) this.#fail(task, reason);
    this.#clearTimer();
    this.#notify();
  }

  #armTimer(at: number): void {
    if (at >= this.#timerAt) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = this.#clock.setTimeout(this.#onTimer, Math.max(0, at - this.#clock.now()));
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  /**
   * Wakes the reading loop after the I/O callbacks at hand (setImmediate), not in each answer's microtasks: when
   * answers arrive together, each one's next request leaves before any row is read, prepared or reported.
   */
  #notify(): void {
    if (this.#wake === undefined || this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    setImmediate(this.#wakeNow);
  }

  readonly #wakeNow = (): void => {
    this.#wakeScheduled = false;
    const wake = this.#wake;
    if (wake !== undefined) {
      this.#wake = undefined;
      wake();
    }
  };

  #readyCount(): number {
    return this.#ready.length - this.#readyHead;
  }

  #takeReady(): Task {
    const task = this.#ready[this.#readyHead] as Task;
    this.#ready[this.#readyHead++] = undefined as unknown as Task;
    if (this.#readyHead === this.#ready.length) {
      this.#ready.length = 0;
      this.#readyHead = 0;
    }
    return task;
  }
}

function describeSystemic(error: unknown): string {
  const status = error instanceof ApiError ? error.status : 0;
  return status === 401 || status === 403 ? 'API key rejected' : 'endpoint not found';
}

/** The outcome of a row that was not sent (or not yet): no status, no attempts. */
function unsent(index: number, row: PreparedRow, kind: OutcomeKind, reason: string | undefined): RowOutcome {
  const outcome: RowOutcome = { index, location: row.location, outcome: kind, attempts: 0, durationMs: 0 };
  if (row.sku !== undefined) outcome.sku = row.sku;
  if (reason !== undefined) outcome.reason = reason;
  return outcome;
}
