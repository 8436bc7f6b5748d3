import { ApiError } from '../errors.js';
import { classifyFailure, type FailureKind } from '../client/classify.js';
import type { PreparedRow } from '../prepare/types.js';
import type { CreateListingResult } from '../client/listings-client.js';
import type { RowOutcome } from './outcome.js';
import { Alarm } from './alarm.js';
import { Fifo } from './fifo.js';
import { describeRejected, failedOutcome, hintOf, publishedOutcome, type Task } from './task.js';
import { RetryBudget } from './retry-budget.js';
import { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy } from './retry-policy.js';
import { parseRetryAfter } from './retry-after.js';
import { idempotencyKeyForHash } from './idempotency.js';
import { DueQueue } from './due-queue.js';
import { selectRow, unsent } from './row-selection.js';
import { ReorderBuffer } from './reorder-buffer.js';
import { createFlowControl } from './flow/create.js';
import type { FlowControl } from './flow/flow-control.js';
import type { SendTicket } from './flow/concurrency-limit.js';
import type { EngineClock, EngineStats, ListingSender, PublishEnd, PublishOptions } from './engine-types.js';

const SYSTEM_CLOCK: EngineClock = {
  now: Date.now,
  monotonic: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: Math.random,
};

/**
 * Real errors in a row, with the retry budget spent, after which the service counts as unusable. One refused
 * retry alone is not enough: a busy run may spend the budget on a flaky but working service.
 */
const UNUSABLE_AFTER = 5;

/** Rows read and prepared ahead of the window, at least (more while the concurrency limit is higher). */
const READ_AHEAD = 16;

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

/**
 * One publishing run: an async iterable of outcomes plus live counts. Iterate it once. How many requests leave at
 * once, how fast and whether at all is the flow control's to decide (flow/); the run reads rows, sends what it
 * may, and turns answers into outcomes, retries and the journal.
 */
export class PublishRun implements AsyncIterable<RowOutcome> {
  readonly #rows: AsyncIterable<unknown>;
  readonly #prepare: ((item: unknown) => PreparedRow) | undefined;
  readonly #sender: ListingSender | undefined;
  readonly #options: PublishOptions;
  readonly #clock: EngineClock;
  readonly #monotonic: () => number;
  readonly #policy: RetryPolicy;
  readonly #budget: RetryBudget;
  readonly #flow: FlowControl;
  readonly #outcomes: ReorderBuffer;
  #sourceDone = false;
  /**
   * After a systemic failure or --max-errors the rest of the input is still read, each row `not_attempted`, so the
   * report lists every row (and `--retry-failed` finds them all); an interrupt stops reading at once.
   */
  #draining = false;
  /** Rows read and prepared ahead, waiting for room to be sent; reading pauses while there are enough. */
  readonly #ready = new Fifo<Task>();
  #wakeScheduled = false;
  readonly #retries = new DueQueue<Task>();
  #requests = 0;
  #retriesSent = 0;
  #failed = 0;
  #errorsInARow = 0;
  #stopping: Exclude<PublishEnd, { kind: 'completed' }> | undefined;
  readonly #alarm: Alarm;
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

  constructor(rows: AsyncIterable<unknown>, options: PublishOptions, prepare: ((item: unknown) => PreparedRow) | undefined) {
    this.#rows = rows;
    this.#prepare = prepare;
    this.#options = options;
    this.#sender = options.sender;
    if (!options.dryRun && this.#sender === undefined) throw new TypeError('publishRows: a sender is required unless dryRun');
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    const clock = this.#clock;
    this.#monotonic = clock.monotonic ?? clock.now;
    this.#policy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    this.#budget = options.retryBudget ?? new RetryBudget();
    this.#flow = createFlowControl(options, this.#monotonic());
    this.#alarm = new Alarm(clock, this.#monotonic, () => {
      this.#guarded(() => this.#dispatch());
      this.#notify();
    });
    const ceiling = options.concurrency ?? options.maxConcurrency ?? 512;
    this.#outcomes = new ReorderBuffer(Math.max(1, options.reorderBuffer ?? Math.max(8192, ceiling * 32)));
  }

  /** Why the run ended; `completed` until it has been stopped. */
  get end(): PublishEnd {
    return this.#stopping ?? { kind: 'completed' };
  }

  stats(): EngineStats {
    return {
      read: this.#outcomes.read,
      inFlight: this.#flow.inFlight,
      window: this.#flow.limit.limit,
      peakWindow: this.#flow.peakLimit,
      pace: this.#flow.pacer.rate(this.#monotonic()),
      waitingRetry: this.#retries.size,
      requests: this.#requests,
      retries: this.#retriesSent,
      failed: this.#failed,
      ...this.#flow.pushback,
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
    const outcomes = this.#outcomes;
    let sourceError: unknown;
    try {
      for (;;) {
        if (this.#fatal !== undefined) throw this.#fatal as Error;
        for (let outcome = outcomes.take(); outcome !== undefined; outcome = outcomes.take()) yield outcome;
        const readingOver = this.#sourceDone || (this.#stopping !== undefined && !this.#draining);
        if (readingOver && outcomes.empty) break;
        if (!readingOver && this.#ready.size < Math.max(READ_AHEAD, this.#flow.limit.limit) && !outcomes.full) {
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
      if (!outcomes.empty || !this.#sourceDone) this.#stop({ kind: 'interrupted' });
      this.#alarm.clear();
      if (!this.#sourceDone) await source.return?.();
    }
    // The outcomes of every row read have been yielded; the source's failure still surfaces.
    if (sourceError !== undefined) throw sourceError as Error;
  }

  /** Decide what to do with one row read from the input. */
  #accept(row: PreparedRow): void {
    const index = this.#outcomes.admit();
    if (this.#stopping !== undefined) {
      this.#outcomes.finish(index, unsent(index, row, 'not_attempted', REASON[this.#stopping.kind]));
      return;
    }
    const selection = selectRow(index, row, this.#options);
    if (selection.kind === 'finished') {
      this.#outcomes.finish(index, selection.outcome);
      return;
    }
    const { body, hash, reason } = selection;
    this.#ready.push({ index, row: selection.row, body, hash, key: idempotencyKeyForHash(hash), reason, attempts: 0, pushbacks: 0, startedAt: 0, lastError: undefined });
    this.#dispatch();
  }

  /** Send what the flow control allows now: due retries first (they hold up the reorder buffer), then new rows. */
  #dispatch(): void {
    if (this.#stopping !== undefined) return;
    const now = this.#monotonic();
    for (;;) {
      const retry = this.#retries.peekDue(now);
      if (retry === undefined && this.#ready.size === 0) break;
      const sendAt = this.#flow.nextSendAt(now);
      if (sendAt > now) {
        if (sendAt !== Infinity) this.#alarm.setFor(sendAt);
        return;
      }
      if (retry !== undefined) {
        this.#retries.pop();
        this.#send(retry, now);
      } else {
        this.#send((this.#ready.take() as Task), now);
        this.#notify();
      }
    }
    const nextDue = this.#retries.nextDueAt();
    if (nextDue !== undefined && nextDue > now) this.#alarm.setFor(nextDue);
  }

  #send(task: Task, now: number): void {
    const sender = this.#sender as ListingSender;
    const ticket = this.#flow.send(now);
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
      (result) => this.#guarded(() => this.#succeeded(task, ticket, result)),
      (error: unknown) => this.#guarded(() => this.#failedAttempt(task, ticket, error)),
    );
  }

  /** A bug (or a journal that throws) in a callback: the row can never finish, so the run ends with the error. */
  #guarded(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.#fatal ??= error;
      this.#stop({ kind: 'interrupted' });
    }
  }

  #succeeded(task: Task, ticket: SendTicket, result: CreateListingResult): void {
    const now = this.#monotonic();
    this.#flow.accepted(ticket, now);
    this.#errorsInARow = 0;
    const { row } = task;
    this.#outcomes.finish(task.index, publishedOutcome(task, result, now));
    this.#options.changedOnly?.set(row.sku, task.hash);
    this.#options.journal?.record({ index: task.index, sku: row.sku, hash: task.hash, outcome: 'published', status: result.status });
    this.#dispatch();
    this.#notify();
  }

  #failedAttempt(task: Task, ticket: SendTicket, error: unknown): void {
    const now = this.#monotonic();
    task.lastError = error;
    const kind = classifyFailure(error);
    const asked = error instanceof ApiError ? parseRetryAfter(error.retryAfter, this.#clock.now()) : undefined;
    this.#flow.failed(ticket, now, kind, error, asked);
    const verdict = this.#flow.verdict;
    if (this.#options.abandon?.aborted) {
      task.lastError = new Error('abandoned in flight: the service may or may not have received it');
      this.#fail(task, 'interrupted');
    } else if (kind === 'rejected') {
      const rejected = describeRejected(error);
      this.#stopSystemic(error, rejected.run, hintOf(error));
      this.#fail(task, rejected.row);
    } else if (verdict !== undefined) {
      this.#stopSystemic(verdict.error, verdict.reason, verdict.hint ?? hintOf(verdict.error));
      if (kind === 'unreachable') this.#outcomes.finish(task.index, unsent(task.index, task.row, 'not_attempted', REASON.systemic));
      else this.#fail(task, REASON.systemic);
    } else if (this.#stopping !== undefined) {
      this.#fail(task, REASON[this.#stopping.kind]);
    } else if (kind === 'unreachable') {
      // It never reached the service: not an attempt. It goes out again when the breaker lets a request through.
      task.attempts--;
      this.#retries.push(task, now);
    } else {
      this.#retry(task, kind, error, now);
    }
    this.#dispatch();
    this.#notify();
  }

  #retry(task: Task, kind: FailureKind, error: unknown, now: number): void {
    const pushback = kind === 'throttled' || kind === 'overloaded' || kind === 'timeout';
    if (pushback) task.pushbacks++;
    else this.#errorsInARow = kind === 'transient' ? this.#errorsInARow + 1 : 0;
    const decision = decideRetry({ error, attempt: task.attempts - task.pushbacks, pushbacks: task.pushbacks, policy: this.#policy, nowMs: this.#clock.now(), random: this.#clock.random });
    if (!decision.retry) {
      this.#fail(task, decision.reason);
    } else if (!decision.pushback && !this.#budget.tryAcquire()) {
      if (this.#errorsInARow >= UNUSABLE_AFTER) this.#stopSystemic(error, `${UNUSABLE_AFTER} errors in a row, and the retry budget is spent`, hintOf(error));
      this.#fail(task, 'retry budget spent');
    } else {
      this.#retries.push(task, now + decision.delayMs);
    }
  }

  #fail(task: Task, reason: string): void {
    const { row } = task;
    const error = task.lastError;
    this.#outcomes.finish(task.index, failedOutcome(task, reason, this.#monotonic()));
    this.#failed++;
    const status = error instanceof ApiError ? { status: error.status } : {};
    this.#options.journal?.record({ index: task.index, sku: row.sku, hash: task.hash, outcome: 'failed', ...status });
    const { maxErrors } = this.#options;
    if (maxErrors !== undefined && this.#failed >= maxErrors && this.#stopping === undefined) {
      this.#stop({ kind: 'max-errors', failed: this.#failed });
    }
  }

  #stopSystemic(error: unknown, reason: string, hint: string | undefined): void {
    this.#stop({ kind: 'systemic', error, requests: this.#requests, reason, ...(hint === undefined ? {} : { hint }) });
  }

  /** End the run early: nothing more is read or sent; in-flight requests finish unless abandoned. */
  #stop(end: Exclude<PublishEnd, { kind: 'completed' }>): void {
    if (this.#stopping === undefined) {
      this.#stopping = end;
      this.#draining = end.kind === 'systemic' || end.kind === 'max-errors';
    }
    const reason = REASON[this.#stopping.kind];
    while (this.#ready.size > 0) {
      const task = (this.#ready.take() as Task);
      this.#outcomes.finish(task.index, unsent(task.index, task.row, 'not_attempted', reason));
    }
    // Rows waiting for a retry were sent and failed: they end as failed, with their last error; rows that never
    // reached the service (the breaker held them) were never attempted.
    for (let task = this.#retries.pop(); task !== undefined; task = this.#retries.pop()) {
      if (task.attempts === 0) this.#outcomes.finish(task.index, unsent(task.index, task.row, 'not_attempted', reason));
      else this.#fail(task, reason);
    }
    this.#alarm.clear();
    this.#notify();
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




}
