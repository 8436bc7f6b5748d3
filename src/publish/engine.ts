import { checkPublishOptions, checkRows } from './check-publish-options.js';
import { guardCallbacks } from './guard-callbacks.js';
import type { PreparedRow } from '../prepare/types.js';
import { checkedCallerRow } from './caller-row.js';
import type { RowOutcome } from './outcome.js';
import { contentHash, idempotencyKeyForHash } from './idempotency.js';
import { selectRow, unsent } from './row-selection.js';
import { ReorderBuffer } from './reorder-buffer.js';
import { Sending } from './sending.js';
import type { EngineClock, EngineStats, PublishEnd, PublishOptions } from './engine-types.js';

const SYSTEM_CLOCK: EngineClock = {
  now: Date.now,
  monotonic: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: Math.random,
};

/** Rows read and prepared ahead of the window, at least (more while the concurrency limit is higher). */
const READ_AHEAD = 16;

/**
 * The most rows read in one go before the loop lets the I/O at hand run: a window that grows by hundreds sends
 * hundreds of requests, and answers read only after them would seem slower than the service answered (start-up took
 * that for a queue and ended early, one run in eight of 2,000 rows at 2 s).
 */
const READ_BURST = 64;

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
 * One publishing run: an async iterable of outcomes plus live counts. Iterate it once. This half reads rows,
 * decides which to send (row-selection.ts) and hands outcomes on in input order; the sending half (sending.ts)
 * sends what the flow control allows and turns answers into outcomes, retries and the journal.
 */
export class PublishRun implements AsyncIterable<RowOutcome> {
  readonly #rows: AsyncIterable<unknown>;
  readonly #prepare: ((item: unknown) => PreparedRow) | undefined;
  readonly #options: PublishOptions;
  readonly #monotonic: () => number;
  readonly #sending: Sending | undefined;
  readonly #outcomes: ReorderBuffer;
  readonly #onSettled: ((outcome: RowOutcome) => void) | undefined;
  /** When reading began: outcomes' `settledAtMs` count from it. */
  #startedAt = 0;
  #sourceDone = false;
  /** Reading was stopped before the source's end (interrupt, abandon, a consumer that left). */
  #cut = false;
  /**
   * After a systemic failure or --max-errors the rest of the input is still read, each row `not_attempted`, so the
   * report lists every row (and `--retry-failed` finds them all); an interrupt stops reading at once.
   */
  #draining = false;
  #wakeScheduled = false;
  #stopping: Exclude<PublishEnd, { kind: 'completed' }> | undefined;
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
    this.#options.sender?.destroy?.().catch(() => undefined);
  };

  constructor(rows: AsyncIterable<unknown>, given: PublishOptions, prepare: ((item: unknown) => PreparedRow) | undefined) {
    checkRows(rows);
    checkPublishOptions(given);
    const options = guardCallbacks(given, (error) => {
      this.#fatal ??= error;
      this.#stop({ kind: 'interrupted' });
    });
    this.#rows = rows;
    this.#prepare = prepare;
    this.#options = options;
    const clock = options.clock ?? SYSTEM_CLOCK;
    this.#monotonic = clock.monotonic ?? clock.now;
    this.#sending = options.dryRun
      ? undefined
      : new Sending(options, clock, this.#monotonic, {
          finish: (index, outcome) => this.#settle(index, outcome),
          failed: (failed) => {
            const { maxErrors } = this.#options;
            if (maxErrors !== undefined && failed >= maxErrors && this.#stopping === undefined) this.#stop({ kind: 'max-errors', failed });
          },
          unusable: (error, reason, hint) => this.#stop({ kind: 'systemic', error, requests: this.#sending?.requests ?? 0, reason, ...(hint === undefined ? {} : { hint }) }),
          notify: () => this.#notify(),
          crash: (error) => {
            this.#fatal ??= error;
            this.#stop({ kind: 'interrupted' });
          },
        });
    const ceiling = options.concurrency ?? options.maxConcurrency ?? 512;
    this.#onSettled = options.onSettled;
    this.#outcomes = new ReorderBuffer(Math.max(1, options.reorderBuffer ?? Math.max(8192, ceiling * 32)), options.ordered ?? true);
  }

  /** True once every row of the source has been read (and so has, or will have, its outcome); false after a cut or an interrupt. */
  get readToEnd(): boolean {
    return this.#sourceDone && this.#stopping?.kind !== 'source' && !this.#cut;
  }

  /** Why the run ended; `completed` until it has been stopped. */
  get end(): PublishEnd {
    return this.#stopping ?? { kind: 'completed' };
  }

  stats(): EngineStats {
    const sending = this.#sending;
    const flow = sending?.flow;
    return {
      read: this.#outcomes.read,
      inFlight: flow?.inFlight ?? 0,
      window: flow?.limit.limit ?? 0,
      peakWindow: flow?.peakLimit ?? 0,
      peakInFlight: flow?.peakInFlight ?? 0,
      pace: flow?.pacer.rate(this.#monotonic()),
      waitingRetry: sending?.waitingRetry ?? 0,
      requests: sending?.requests ?? 0,
      retries: sending?.retriesSent ?? 0,
      failed: sending?.failedRows ?? 0,
      throttled: flow?.pushback.throttled ?? 0,
      overloaded: flow?.pushback.overloaded ?? 0,
      timeouts: flow?.pushback.timeouts ?? 0,
      unreachable: flow?.pushback.unreachable ?? 0,
    };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RowOutcome, void, undefined> {
    if (this.#started) throw new Error('a PublishRun can be iterated only once');
    this.#started = true;
    this.#startedAt = this.#monotonic();
    const { stop, abandon } = this.#options;
    stop?.addEventListener('abort', this.#onStop);
    abandon?.addEventListener('abort', this.#onAbandon);
    if (abandon?.aborted) this.#onAbandon();
    else if (stop?.aborted) this.#onStop();
    const source = this.#rows[Symbol.asyncIterator]();
    const outcomes = this.#outcomes;
    let sourceError: unknown;
    /** A live source's read still in progress (see PublishOptions.live). */
    let pendingRead: Promise<IteratorResult<unknown>> | undefined;
    /** Rows read since the loop last waited. */
    let burst = 0;
    try {
      for (;;) {
        if (this.#fatal !== undefined) throw this.#fatal as Error;
        for (let outcome = outcomes.take(); outcome !== undefined; outcome = outcomes.take()) yield outcome;
        const readingOver = this.#sourceDone || (this.#stopping !== undefined && !this.#draining);
        if (readingOver && outcomes.empty) break;
        if (!readingOver && (pendingRead !== undefined || (this.#wantsRows() && !outcomes.full))) {
          if (++burst > READ_BURST) {
            burst = 0;
            await new Promise<void>((resolve) => setImmediate(resolve));
            continue;
          }
          let next: IteratorResult<unknown>;
          try {
            if (this.#options.live === true) {
              // A live source may wait long: a finished outcome (or a stop) wakes the loop in the meantime.
              pendingRead ??= source.next();
              const read = pendingRead;
              const settled = await Promise.race([read.then(() => true), new Promise<false>((resolve) => (this.#wake = () => resolve(false)))]);
              this.#wake = undefined;
              if (!settled) continue;
              pendingRead = undefined;
              next = await read;
            } else {
              next = await source.next();
            }
          } catch (error) {
            pendingRead = undefined;
            this.#sourceDone = true;
            // A read aborted by the stop signal is how a stopped source ends, not a failure.
            if (this.#options.stop?.aborted === true) this.#cut = true;
            else {
              sourceError = error;
              this.#stop({ kind: 'source', error });
            }
            continue;
          }
          if (next.done === true) this.#sourceDone = true;
          else this.#accept(this.#prepare === undefined ? checkedCallerRow(next.value as PreparedRow) : this.#prepare(next.value));
          continue;
        }
        burst = 0;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      stop?.removeEventListener('abort', this.#onStop);
      abandon?.removeEventListener('abort', this.#onAbandon);
      // A consumer that leaves early ends the run: nothing more is sent.
      if (!outcomes.empty || !this.#sourceDone) this.#stop({ kind: 'interrupted' });
      if (!this.#sourceDone) this.#cut = true;
      this.#sending?.close();
      if (!this.#sourceDone) await source.return?.();
    }
    // The outcomes of every row read have been yielded; the source's failure still surfaces.
    if (sourceError !== undefined) throw sourceError as Error;
  }

  /**
   * Rows are read and prepared ahead of the window (the one it grows to next), so an answer's next request leaves at
   * once.
   */
  #wantsRows(): boolean {
    const sending = this.#sending;
    if (sending === undefined) return true;
    const { limit } = sending.flow;
    return sending.readyCount < Math.max(READ_AHEAD, limit.upcoming ?? limit.limit);
  }

  /** Decide what to do with one row read from the input. */
  #accept(row: PreparedRow): void {
    const index = this.#outcomes.admit();
    if (this.#stopping !== undefined) {
      this.#settle(index, unsent(index, row, 'not_attempted', REASON[this.#stopping.kind]));
      return;
    }
    const selection = selectRow(index, row, this.#options);
    if (selection.kind === 'finished' || this.#sending === undefined) {
      if (selection.kind === 'finished') this.#settle(index, selection.outcome);
      return;
    }
    const { body, hash, reason } = selection;
    const scope = selection.row.idempotencyScope;
    const key = idempotencyKeyForHash(scope === undefined ? hash : contentHash(`${scope}\n${hash}`));
    this.#sending.add({ index, row: selection.row, body, hash, key, reason, attempts: 0, pushbacks: 0, startedAt: 0, lastError: undefined });
  }

  /** A row's outcome is known: stamped with the time, told to `onSettled` now, handed on in its turn. */
  #settle(index: number, outcome: RowOutcome): void {
    outcome.settledAtMs = Math.round(this.#monotonic() - this.#startedAt);
    this.#onSettled?.(outcome);
    this.#outcomes.finish(index, outcome);
  }

  /** End the run early: nothing more is read or sent; in-flight requests finish unless abandoned. */
  #stop(end: Exclude<PublishEnd, { kind: 'completed' }>): void {
    if (this.#stopping === undefined) {
      this.#stopping = end;
      this.#draining = end.kind === 'systemic' || end.kind === 'max-errors';
      this.#options.onEvent?.({ type: 'stopped', end });
    }
    this.#sending?.halt(REASON[this.#stopping.kind]);
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
