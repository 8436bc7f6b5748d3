import type { Draft } from '../catalog/types.js';
import { createPreparer } from '../prepare/preparer.js';
import type { ListingDefaults } from '../prepare/types.js';
import type { NameSetting } from '../errors.js';
import type { RowOutcome } from '../publish/outcome.js';
import { selectRow, unsent } from '../publish/row-selection.js';
import { listingMessage, type ListingMessage } from './listing-message.js';

/** Where `listings enqueue` sends its messages: one topic, batches acknowledged by every in-sync replica. */
export interface ListingProducer {
  /**
   * Sends the messages in order (each to its key's partition); resolves once all are acknowledged, with the
   * partitions written, else rejects.
   */
  send(messages: readonly ListingMessage[]): Promise<readonly number[]>;
}

/** Options of {@link enqueueListings}. */
export interface EnqueueOptions {
  /** The run's listing defaults, whole: rows are checked with them, and the messages carry them. */
  defaults: ListingDefaults;
  /** How a row's issue names a setting that would fill a missing field (the CLI passes its flag names). */
  name?: NameSetting;
  producer: ListingProducer;
  /** Messages per produce request, at most. Default 1,000. */
  batchSize?: number;
  /** Bytes of message values per produce request, at most. Default 1 MiB (a broker's default limit). */
  batchBytes?: number;
  /** Stop reading: the batch in flight finishes, the rows read after it are `not_attempted`. */
  stop?: AbortSignal;
}

/** Why an enqueue run ended: every row read, a stop, Kafka refusing a batch, or the catalog failing to read. */
export type EnqueueEnd =
  | { kind: 'running' }
  | { kind: 'completed' }
  | { kind: 'interrupted' }
  | { kind: 'kafka'; error: unknown }
  | { kind: 'source'; error: unknown };

export interface EnqueueStats {
  /** Listings read (a row fanned out to several marketplaces is several). */
  read: number;
  enqueued: number;
  /** Produce requests acknowledged, and the bytes of their message values. */
  batches: number;
  bytes: number;
  /** The partitions written, in order. */
  partitions: number[];
}

/** A batch: the outcomes of its rows in input order, and the messages of those that are listings to send. */
interface Batch {
  outcomes: RowOutcome[];
  messages: ListingMessage[];
  bytes: number;
}

const newBatch = (): Batch => ({ outcomes: [], messages: [], bytes: 0 });

/** The reason of rows left unsent, by how the run ended. */
const UNSENT: Record<'interrupted' | 'kafka' | 'source', string> = { interrupted: 'interrupted', kafka: 'kafka unusable', source: 'source unreadable' };

/**
 * Enqueue a catalog's listings to Kafka for `listings stream` workers: each draft is checked as `publish` checks it
 * (one preparer for the run: a listing repeated in it is invalid), and each listing ready to send becomes one
 * message (see listingMessage), keyed by marketplace and SKU. Iterate it for one outcome per listing, in input
 * order: `validated` becomes `enqueued` once its batch is acknowledged; `invalid` and `skipped` rows are not sent. One
 * batch is in flight while the next fills, so memory holds two batches at most. A batch Kafka refuses fails its rows
 * and ends the run (`end.kind === 'kafka'`); the rows read after it are `not_attempted`.
 *
 * ```ts
 * for await (const outcome of enqueueListings(drafts, { defaults, producer })) console.log(outcome.outcome);
 * ```
 */
export function enqueueListings(drafts: AsyncIterable<Draft>, options: EnqueueOptions): EnqueueRun {
  return new EnqueueRun(drafts, options);
}

export class EnqueueRun implements AsyncIterable<RowOutcome> {
  #end: EnqueueEnd = { kind: 'running' };
  readonly #stats: Omit<EnqueueStats, 'partitions'> = { read: 0, enqueued: 0, batches: 0, bytes: 0 };
  readonly #partitions = new Set<number>();

  constructor(
    private readonly drafts: AsyncIterable<Draft>,
    private readonly options: EnqueueOptions,
  ) {}

  get end(): EnqueueEnd {
    return this.#end;
  }

  stats(): EnqueueStats {
    return { ...this.#stats, partitions: [...this.#partitions].sort((a, b) => a - b) };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RowOutcome, void, undefined> {
    const { options } = this;
    const maxCount = Math.max(1, options.batchSize ?? 1000);
    const maxBytes = Math.max(1, options.batchBytes ?? 1024 * 1024);
    const prepare = createPreparer(options.defaults, options.name === undefined ? {} : { name: options.name });
    let filling = newBatch();
    let inFlight: Promise<RowOutcome[]> | undefined;
    let sourceError: unknown;
    const iterator = this.drafts[Symbol.asyncIterator]();
    try {
      for (;;) {
        if (options.stop?.aborted === true && this.#end.kind === 'running') this.#end = { kind: 'interrupted' };
        if (this.#end.kind === 'interrupted') break;
        let next: IteratorResult<Draft>;
        try {
          next = await iterator.next();
        } catch (error) {
          sourceError = error;
          if (this.#end.kind === 'running') this.#end = { kind: 'source', error };
          break;
        }
        if (next.done === true) break;
        const index = this.#stats.read++;
        const row = prepare(next.value);
        if (this.#end.kind === 'kafka') {
          filling.outcomes.push(unsent(index, row, 'not_attempted', UNSENT.kafka));
        } else {
          const selection = selectRow(index, row, { dryRun: true });
          const outcome = selection.kind === 'finished' ? selection.outcome : unsent(index, row, 'validated', undefined);
          filling.outcomes.push(outcome);
          if (outcome.outcome === 'validated' && row.kind === 'ready') {
            const message = listingMessage(row.request, row.sku);
            filling.messages.push(message);
            filling.bytes += message.value.length + message.key.length;
          }
        }
        if (filling.messages.length >= maxCount || filling.bytes >= maxBytes || filling.outcomes.length >= maxCount * 4) {
          if (inFlight !== undefined) yield* await inFlight;
          inFlight = this.#send(filling);
          filling = newBatch();
        }
      }
      if (inFlight !== undefined) yield* await inFlight;
      inFlight = undefined;
      // What was read before a stop is not sent; before the source failed, it is (as publish sends every row read).
      if (this.#end.kind === 'interrupted') yield* this.#unsent(filling, 'interrupted');
      else yield* await this.#send(filling);
      if (this.#end.kind === 'running') this.#end = { kind: 'completed' };
    } finally {
      if (inFlight !== undefined) await inFlight;
      await iterator.return?.();
    }
    if (sourceError !== undefined) throw sourceError as Error;
  }

  /** Sends a batch; its outcomes once acknowledged (or failed, and the run then ends). */
  async #send(batch: Batch): Promise<RowOutcome[]> {
    if (this.#end.kind === 'kafka') return this.#unsent(batch, 'kafka');
    if (batch.messages.length === 0) return batch.outcomes;
    const started = performance.now();
    try {
      for (const partition of await this.options.producer.send(batch.messages)) this.#partitions.add(partition);
    } catch (error) {
      if (this.#end.kind === 'running' || this.#end.kind === 'interrupted') this.#end = { kind: 'kafka', error };
      const message = error instanceof Error ? error.message : String(error);
      for (const outcome of batch.outcomes) {
        if (outcome.outcome !== 'validated') continue;
        outcome.outcome = 'failed';
        outcome.reason = UNSENT.kafka;
        outcome.error = message;
        outcome.attempts = 1;
      }
      return batch.outcomes;
    }
    const durationMs = Math.round(performance.now() - started);
    for (const outcome of batch.outcomes) {
      if (outcome.outcome !== 'validated') continue;
      outcome.outcome = 'enqueued';
      outcome.attempts = 1;
      outcome.durationMs = durationMs;
    }
    this.#stats.enqueued += batch.messages.length;
    this.#stats.batches++;
    this.#stats.bytes += batch.bytes;
    return batch.outcomes;
  }

  /** A batch left unsent: its listings are `not_attempted`. */
  #unsent(batch: Batch, why: 'interrupted' | 'kafka'): RowOutcome[] {
    for (const outcome of batch.outcomes) {
      if (outcome.outcome !== 'validated') continue;
      outcome.outcome = 'not_attempted';
      outcome.reason = UNSENT[why];
    }
    return batch.outcomes;
  }
}
