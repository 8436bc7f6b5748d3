import { ApiError, NetworkError } from '../errors.js';
import { classifyFailure, isPushbackKind, type FailureKind } from '../client/classify.js';
import type { CreateListingResult } from '../client/listings-client.js';
import type { RowOutcome } from './outcome.js';
import { Alarm } from './alarm.js';
import { DueQueue } from './due-queue.js';
import { Fifo } from './fifo.js';
import { RetryBudget } from './retry-budget.js';
import { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy } from './retry-policy.js';
import { parseRetryAfter } from './retry-after.js';
import { unsent } from './row-selection.js';
import { describeRejected, failedOutcome, hintOf, publishedOutcome, type Task } from './task.js';
import { createFlowControl } from './flow/create.js';
import type { FlowControl } from './flow/flow-control.js';
import type { SendTicket } from './flow/concurrency-limit.js';
import type { EngineClock, ListingSender, PublishOptions } from './engine-types.js';
import { echoMismatch } from './echo.js';

/**
 * Real errors in a row, with the retry budget spent, after which the service counts as unusable. One refused
 * retry alone is not enough: a busy run may spend the budget on a flaky but working service.
 */
const UNUSABLE_AFTER = 5;
const UNUSABLE = 'service unusable';

/** What the sending side tells the run it serves. */
export interface SendingHooks {
  /** A row's outcome is known. */
  finish(index: number, outcome: RowOutcome): void;
  /** A row failed; `failed` rows so far (for --max-errors). */
  failed(failed: number): void;
  /** The service cannot be used by this run: the run must stop. */
  unusable(error: unknown, reason: string, hint: string | undefined): void;
  /** Something changed that the reading loop may be waiting for. */
  notify(): void;
  /** A callback threw: the run ends with the error. */
  crash(error: unknown): void;
}

/**
 * The sending half of a run: rows ready to go, rows waiting to be sent again, and the requests in flight. It sends
 * what the flow control allows, turns each answer into an outcome, a retry or the run's end, and journals every row
 * that reached the service.
 */
export class Sending {
  readonly flow: FlowControl;
  readonly #options: PublishOptions;
  readonly #sender: ListingSender | undefined;
  readonly #clock: EngineClock;
  readonly #now: () => number;
  readonly #hooks: SendingHooks;
  readonly #policy: RetryPolicy;
  readonly #budget: RetryBudget;
  readonly #ready = new Fifo<Task>();
  readonly #retries = new DueQueue<Task>();
  readonly #alarm: Alarm;
  /** Set once the run stops: nothing more is sent, and answers still coming end their rows with this reason. */
  #halted: string | undefined;
  /**
   * Rings at the flow's give-up time (see FlowControl.giveUpAt), so that a service that accepts nothing is given up
   * on at the deadline, not at its next failure, which a held or backed-off retry may bring seconds later. Unref'd:
   * it never keeps the process alive by itself.
   */
  readonly #giveUpAlarm: Alarm;
  #errorsInARow = 0;
  requests = 0;
  retriesSent = 0;
  failedRows = 0;

  constructor(options: PublishOptions, clock: EngineClock, now: () => number, hooks: SendingHooks) {
    this.#options = options;
    this.#sender = options.sender;
    this.#clock = clock;
    this.#now = now;
    this.#hooks = hooks;
    this.#policy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    this.#budget = options.retryBudget ?? new RetryBudget();
    this.flow = createFlowControl(options, now());
    this.#alarm = new Alarm(clock, now, () => {
      this.#guarded(() => this.dispatch());
      hooks.notify();
    });
    this.#giveUpAlarm = new Alarm(clock, now, this.#giveUpRang, { unref: true });
  }

  /** Rows ready and not yet sent. */
  get readyCount(): number {
    return this.#ready.size;
  }

  get waitingRetry(): number {
    return this.#retries.size;
  }

  add(task: Task): void {
    this.#ready.push(task);
    this.dispatch();
  }

  /** Send what the flow control allows now: due retries first (they hold up the reorder buffer), then new rows. */
  dispatch(): void {
    if (this.#halted !== undefined) return;
    const now = this.#now();
    // A probe or a retry due at the give-up time is not sent: the run ends instead. (A row read after a quiet spell,
    // nothing in flight or waiting, is sent: the give-up time is the timer's to judge, and it was not waiting.)
    if (now >= this.flow.giveUpAt && (this.flow.inFlight > 0 || this.#retries.size > 0) && this.#giveUp(now)) return;
    for (;;) {
      const retry = this.#retries.peekDue(now);
      if (retry === undefined && this.#ready.size === 0) break;
      const sendAt = this.flow.nextSendAt(now);
      if (sendAt > now) {
        if (sendAt !== Infinity) this.#alarm.setFor(sendAt);
        else this.#prepareConnections();
        return;
      }
      if (retry !== undefined) {
        this.#retries.pop();
        this.#send(retry, now);
      } else {
        this.#send(this.#ready.take() as Task, now);
        this.#hooks.notify();
      }
    }
    const nextDue = this.#retries.nextDueAt();
    if (nextDue !== undefined && nextDue > now) this.#alarm.setFor(nextDue);
  }

  /** Stop sending: rows ready become `not_attempted`; rows waiting for a retry end as failed (they were sent). */
  halt(reason: string): void {
    this.#halted ??= reason;
    for (let task = this.#ready.take(); task !== undefined; task = this.#ready.take()) this.#hooks.finish(task.index, unsent(task.index, task.row, 'not_attempted', reason));
    for (let task = this.#retries.pop(); task !== undefined; task = this.#retries.pop()) {
      // A row the breaker held back never reached the service.
      if (task.attempts === 0) this.#hooks.finish(task.index, unsent(task.index, task.row, 'not_attempted', reason));
      else this.#fail(task, reason);
    }
    this.#alarm.clear();
    this.#giveUpAlarm.clear();
  }

  /** The run is over: no timer may keep the process alive. */
  close(): void {
    this.#alarm.clear();
    this.#giveUpAlarm.clear();
  }

  /** True when the give-up time has come with nothing accepted: the run was told the service is unusable. */
  #giveUp(now: number): boolean {
    const verdict = this.flow.onDeadline(now);
    if (verdict === undefined) return false;
    this.#hooks.unusable(verdict.error, verdict.reason, verdict.hint ?? hintOf(verdict.error));
    return true;
  }

  /** Keeps the give-up timer at the flow's give-up time: set by a failure, moved or cleared by progress and the end. */
  #armGiveUp(): void {
    this.#giveUpAlarm.setAt(this.#halted === undefined ? this.flow.giveUpAt : Infinity);
  }

  readonly #giveUpRang = (): void => {
    this.#guarded(() => {
      if (this.#halted !== undefined) return;
      const now = this.#now();
      // A timer may ring a little before the monotonic clock reaches its time: then it is set again.
      if (now < this.flow.giveUpAt) this.#armGiveUp();
      // Only while the run waits on the service: rows in flight, waiting for a retry, or held back. A stream whose
      // topic went quiet after a failure is not given up on for it (the next failure or acceptance decides).
      else if (this.flow.inFlight > 0 || this.#retries.size > 0 || this.#ready.size > 0) this.#giveUp(now);
    });
    this.#hooks.notify();
  };

  /**
   * The window is full and about to grow (a slow service's start-up): the connections its next round needs, for the
   * rows at hand, are opened while this round's answers are awaited.
   */
  #prepareConnections(): void {
    const { limit } = this.flow;
    const upcoming = limit.upcoming;
    if (upcoming !== undefined && upcoming > limit.limit) this.#sender?.prepareConnections?.(Math.min(upcoming, this.flow.inFlight + this.#ready.size));
  }

  #send(task: Task, now: number): void {
    const sender = this.#sender as ListingSender;
    const ticket = this.flow.send(now);
    this.requests++;
    if (task.attempts++ === 0) {
      task.startedAt = now;
      this.#budget.recordRequest();
    } else {
      this.retriesSent++;
    }
    let answer: Promise<CreateListingResult>;
    try {
      answer = sender.postListingJson(task.body, {
        idempotencyKey: task.key,
        onWritten: () => {
          ticket.sentAt = this.#now();
        },
      });
    } catch (error) {
      answer = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    answer.then(
      (result) => this.#answered(task, ticket, result),
      (error: unknown) => this.#notAnswered(task, ticket, error),
    );
  }

  // (Two methods rather than a closure per answer around #guarded: one allocation less per request.)
  #answered(task: Task, ticket: SendTicket, result: CreateListingResult): void {
    try {
      this.#succeeded(task, ticket, result);
    } catch (error) {
      this.#hooks.crash(error);
    }
  }

  #notAnswered(task: Task, ticket: SendTicket, error: unknown): void {
    try {
      this.#failedAttempt(task, ticket, error);
    } catch (thrown) {
      this.#hooks.crash(thrown);
    }
  }

  #guarded(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.#hooks.crash(error);
    }
  }

  #succeeded(task: Task, ticket: SendTicket, result: CreateListingResult): void {
    const mismatch = echoMismatch(task.row.sku, result);
    if (mismatch !== undefined) {
      this.#failedAttempt(task, ticket, mismatch);
      return;
    }
    const now = this.#now();
    const observer = this.#options.onEvent;
    if (observer !== undefined) observer({ type: 'answer', index: task.index, attempt: task.attempts, status: result.status, kind: 'ok', ms: now - ticket.sentAt });
    this.flow.accepted(ticket, now);
    this.#errorsInARow = 0;
    this.#budget.recordAccepted();
    this.#hooks.finish(task.index, publishedOutcome(task, result, now));
    this.#options.changedOnly?.set(task.row.request.marketplace, task.row.sku, task.hash);
    this.#options.journal?.record({ index: task.index, sku: task.row.sku, marketplace: task.row.request.marketplace, hash: task.hash, outcome: 'published', status: result.status });
    this.#armGiveUp();
    this.dispatch();
    this.#hooks.notify();
  }

  #failedAttempt(task: Task, ticket: SendTicket, error: unknown): void {
    const now = this.#now();
    task.lastError = error;
    const kind = classifyFailure(error);
    const observer = this.#options.onEvent;
    if (observer !== undefined) observer({ type: 'answer', index: task.index, attempt: task.attempts, status: error instanceof ApiError ? error.status : undefined, kind, ms: now - ticket.sentAt });
    const asked = error instanceof ApiError ? parseRetryAfter(error.retryAfter, this.#clock.now()) : undefined;
    this.flow.failed(ticket, now, kind, error, asked);
    const verdict = this.flow.verdict;
    if (this.#options.abandon?.aborted) {
      task.lastError = new Error('abandoned in flight: the service may or may not have received it');
      this.#fail(task, 'interrupted');
    } else if (kind === 'rejected') {
      const rejected = describeRejected(error);
      this.#hooks.unusable(error, rejected.run, hintOf(error));
      this.#fail(task, rejected.row);
    } else if (verdict !== undefined) {
      this.#hooks.unusable(verdict.error, verdict.reason, verdict.hint ?? hintOf(verdict.error));
      if (kind === 'unreachable') this.#hooks.finish(task.index, unsent(task.index, task.row, 'not_attempted', UNUSABLE));
      else this.#fail(task, UNUSABLE);
    } else if (this.#halted !== undefined) {
      this.#fail(task, this.#halted);
    } else if (kind === 'unreachable') {
      // It never reached the service: not an attempt. It goes out again when the breaker lets a request through.
      task.attempts--;
      this.#retries.push(task, now);
      if (observer !== undefined) observer({ type: 'retry', index: task.index, attempt: task.attempts + 1, delayMs: 0, reason: kind });
    } else {
      this.#retry(task, kind, error, now, ticket.sentAt);
    }
    this.#armGiveUp();
    this.dispatch();
    this.#hooks.notify();
  }

  #retry(task: Task, kind: FailureKind, error: unknown, now: number, sentAt: number): void {
    if (isPushbackKind(kind)) task.pushbacks++;
    else this.#errorsInARow = kind === 'transient' ? this.#errorsInARow + 1 : 0;
    const decision = decideRetry({ error, attempt: task.attempts - task.pushbacks, pushbacks: task.pushbacks, policy: this.#policy, nowMs: this.#clock.now(), random: this.#clock.random });
    if (!decision.retry) {
      this.#fail(task, decision.reason);
    } else if (!decision.pushback && !this.#budget.tryAcquire(error instanceof NetworkError ? { sentAt, now } : undefined)) {
      if (this.#errorsInARow >= UNUSABLE_AFTER) this.#hooks.unusable(error, `${UNUSABLE_AFTER} errors in a row, and the retry budget is spent`, hintOf(error));
      this.#fail(task, 'retry budget spent');
    } else {
      this.#retries.push(task, now + decision.delayMs);
      const observer = this.#options.onEvent;
      if (observer !== undefined) observer({ type: 'retry', index: task.index, attempt: task.attempts + 1, delayMs: Math.round(decision.delayMs), reason: error instanceof ApiError ? `${kind} (${error.status})` : kind });
    }
  }

  #fail(task: Task, reason: string): void {
    const error = task.lastError;
    this.#hooks.finish(task.index, failedOutcome(task, reason, this.#now()));
    const status = error instanceof ApiError ? { status: error.status } : {};
    this.#options.journal?.record({ index: task.index, sku: task.row.sku, marketplace: task.row.request.marketplace, hash: task.hash, outcome: 'failed', ...status });
    this.#hooks.failed(++this.failedRows);
  }
}
