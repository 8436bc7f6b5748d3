import type { Draft } from '../catalog/types.js';
import { ConfigError } from '../errors.js';
import { createPreparer } from '../prepare/preparer.js';
import type { PreparedRow } from '../prepare/types.js';
import { publishRows, type PublishRun } from '../publish/engine.js';
import type { EngineObserver, PublishOptions } from '../publish/engine-types.js';
import { checkFanOut, defaultMarketplaces, fanOutDraft } from '../prepare/fan-out.js';
import { createSettingsCheck, FIRST_ROWS, neededSettings } from '../prepare/missing-settings.js';
import type { ListingDefaults } from '../prepare/types.js';
import type { RowOutcome } from '../publish/outcome.js';
import { DEFAULT_RETRY_POLICY } from '../publish/retry-policy.js';
import { deadLetterOf, FileDeadLetters, type DeadLetterSink } from './dead-letter.js';
import { isKafkaAddress, parseKafkaAddress, type KafkaAddress } from './kafka-address.js';
import type { BatchControl, ConsumerHandle, KafkaLog } from './kafka-client.js';
import { createMessageMapper, messagesPlace, type StreamMessage } from './message-draft.js';
import { listingFormatOf } from './listing-message.js';
import type { BreakerState, StreamEnd, StreamListingsOptions, StreamOutcome, StreamStats } from './stream-types.js';
import { MessageFeed } from './message-feed.js';
import { OffsetTracker, type OffsetTicket } from './offset-tracker.js';
import { KeyedGate } from './sku-gate.js';
import { LatencyHistogram } from './latency-histogram.js';

/** A message on its way: its listings (several when it fans out to several marketplaces) must all end durably. */
interface MessageState {
  ticket: OffsetTicket;
  /** Listings of the message without an outcome yet. */
  left: number;
  /** False once one of its listings ended without a durable outcome: the message is then not committed. */
  durable: boolean;
}

/** One listing of a message. */
interface Item {
  message: StreamMessage;
  draft: Draft;
  state: MessageState;
  /** The SKU gate's key (marketplace and SKU), when the draft has a SKU. */
  gateKey: string | undefined;
}

/** Reasons of `failed` outcomes that mean "not tried to the end" (the run was stopping), not a verdict on the message. */
const UNFINISHED = new Set(['interrupted', 'service unusable', 'max errors reached', 'source unreadable']);
const REVOKED = 'partition revoked';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Publish every message of a Kafka topic as it arrives, in a consumer group: an async iterable of one outcome per
 * message, until `stop`. At least once: a partition's offset is committed only past messages that all have a durable
 * outcome (published, skipped, or failed/invalid and dead-lettered); replays are made harmless by the Idempotency-Key,
 * which covers the message's topic, partition and offset. Two changes of one SKU are never in flight at once, and
 * apply in partition order. A busy or down service pauses consumption (the engine's flow control) instead of
 * failing messages.
 *
 * ```ts
 * const stream = streamListings({ source: 'kafka://localhost:9092/products', group: 'listings', sender: client });
 * for await (const { message, outcome } of stream) console.log(message.offset, outcome.outcome);
 * ```
 */
export function streamListings(options: StreamListingsOptions): StreamRun {
  return new StreamRun(options);
}

export class StreamRun implements AsyncIterable<StreamOutcome> {
  readonly #options: StreamListingsOptions;
  readonly #address: KafkaAddress;
  readonly #tracker = new OffsetTracker();
  readonly #gate = new KeyedGate<Item>();
  readonly #feed = new MessageFeed<Item>();
  /** Items handed to the engine, by the engine's index (outcomes come back as they finish). */
  readonly #fed = new Map<number, Item>();
  #nextIndex = 0;
  /** The marketplaces a message that names none goes to (several: it fans out). */
  #marketplaces: readonly string[] = [];
  readonly #engineStop = new AbortController();
  readonly #engineAbandon = new AbortController();
  readonly #roomWaiters: Array<() => void> = [];
  #run: PublishRun | undefined;
  #mapper: ReturnType<typeof createMessageMapper> | undefined;
  /** After a stop: when the requests still in flight are abandoned. */
  #drain: NodeJS.Timeout | undefined;
  #consumer: ConsumerHandle | undefined;
  #deadLetters: DeadLetterSink | undefined;
  #committing: Promise<void> = Promise.resolve();
  #end: StreamEnd = { kind: 'running' };
  #stopping = false;
  #started = false;
  #buffered = 0;
  #received = 0;
  #published = 0;
  #deadLettered = 0;
  #notDurable = 0;
  #commits = 0;
  /** In the consumer group: joined, and not in a rebalance since. */
  #joined = false;
  #breaker: BreakerState = 'closed';
  readonly #latency = new LatencyHistogram();

  constructor(options: StreamListingsOptions) {
    if (options.sender === undefined) throw new TypeError('streamListings: a sender is required');
    if (!isKafkaAddress(options.source)) throw new ConfigError(`streamListings: source ${JSON.stringify(options.source)} is not a kafka:// address`);
    if (options.group.trim() === '') throw new ConfigError('streamListings: the consumer group must not be empty');
    this.#options = options;
    this.#address = parseKafkaAddress(options.source, 'source');
    // Marketplaces that are one in the shape's form: refused before joining the group, as a publish refuses them.
    checkFanOut(this.#defaults());
  }

  #defaults(): ListingDefaults {
    return { shape: 'flat' as const, saved_defaults: false, ...this.#options.defaults };
  }

  get end(): StreamEnd {
    return this.#end;
  }

  stats(): StreamStats {
    const engine = this.#run?.stats() ?? { read: 0, inFlight: 0, window: 0, peakWindow: 0, peakInFlight: 0, pace: undefined, waitingRetry: 0, requests: 0, retries: 0, failed: 0, throttled: 0, overloaded: 0, timeouts: 0, unreachable: 0 };
    return {
      received: this.#received,
      published: this.#published,
      deadLettered: this.#deadLettered,
      notDurable: this.#notDurable,
      buffered: this.#buffered,
      waitingForSku: this.#gate.waiting,
      commits: this.#commits,
      joined: this.#joined && this.#end.kind === 'running',
      breaker: this.#breaker,
      latency: { p50: this.#latency.quantile(0.5), p95: this.#latency.quantile(0.95), p99: this.#latency.quantile(0.99) },
      partitions: this.#tracker.positions(),
      engine,
    };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamOutcome, void, undefined> {
    if (this.#started) throw new Error('a StreamRun can be iterated only once');
    this.#started = true;
    const options = this.#options;
    const log: KafkaLog = options.onLog ?? (() => undefined);
    const onStop = (): void => this.#beginStop(false);
    const onAbandon = (): void => this.#beginStop(true);
    let timer: NodeJS.Timeout | undefined;
    try {
      this.#deadLetters = await openDeadLetters(options, log);
      const run = this.#startEngine();
      this.#run = run;
      const { startConsumer } = await import('./kafka-client.js');
      this.#consumer = await startConsumer(
        { address: this.#address, group: options.group, fromBeginning: options.fromBeginning ?? true, sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000, clientId: options.clientId ?? 'listings', log, security: options.security ?? {} },
        {
          onBatch: (batch, control) => this.#take(batch, control),
          onAssigned: (partitions) => this.#assigned(partitions, log),
          onRebalancing: () => {
            this.#joined = false;
            void this.#commit(log);
          },
          onCrash: (error) => {
            if (this.#end.kind === 'running') this.#end = { kind: 'source', error };
            this.#beginStop(false);
          },
        },
      );
      options.stop?.addEventListener('abort', onStop);
      options.abandon?.addEventListener('abort', onAbandon);
      if (options.abandon?.aborted === true) onAbandon();
      else if (options.stop?.aborted === true) onStop();
      timer = setInterval(() => void this.#commit(log), options.commitIntervalMs ?? 1000);
      for await (const outcome of run) {
        const item = this.#fed.get(outcome.index) as Item;
        this.#fed.delete(outcome.index);
        yield await this.#settle(item, outcome, run);
      }
      if (run.end.kind === 'systemic' && this.#end.kind === 'running') this.#end = run.end;
    } finally {
      options.stop?.removeEventListener('abort', onStop);
      options.abandon?.removeEventListener('abort', onAbandon);
      clearInterval(timer);
      this.#beginStop(false);
      clearTimeout(this.#drain);
      try {
        if (this.#consumer !== undefined) await this.#commit(log, true);
      } finally {
        await this.#deadLetters?.close().catch((error: unknown) => log('error', `cannot close the dead letter ${this.#deadLetters?.name}: ${(error as Error).message}`));
        await this.#consumer?.disconnect().catch(() => undefined);
      }
    }
  }

  #startEngine(): PublishRun {
    const options = this.#options;
    const defaults = this.#defaults();
    this.#marketplaces = defaultMarketplaces(defaults);
    const preparer = createPreparer(defaults, { repeatedSkus: 'allowed', ...(options.name === undefined ? {} : { name: options.name }) });
    const observer = options.onEvent;
    const onEvent: EngineObserver = (event) => {
      if (event.type === 'breaker') this.#breaker = event.state;
      // The service became unusable: stop reading, so the stream ends with what is done committed.
      if (event.type === 'stopped' && event.end.kind === 'systemic') {
        if (this.#end.kind === 'running') this.#end = event.end;
        this.#beginStop(false);
      }
      observer?.(event);
    };
    const policy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    const publishOptions: PublishOptions = {
      ...pick(options),
      // A stream never gives a message up for pushback: a busy service pauses it, one that stays down ends the
      // process (the breaker's give-up-after), and the message is read again by the next process.
      retryPolicy: { ...policy, maxPushbacks: Number.POSITIVE_INFINITY, maxRetryAfterMs: Math.max(policy.maxRetryAfterMs, 600_000) },
      live: true,
      // Offsets are committed by the tracker, not by position: one message in long retries holds back no other.
      ordered: false,
      stop: this.#engineStop.signal,
      abandon: this.#engineAbandon.signal,
      onEvent,
    };
    // The engine numbers what it reads in reading order, from 0: the same count here names each item's index.
    return publishRows(checkedFeed(this.#feed, defaults), publishOptions, (item: Item): PreparedRow => {
      this.#fed.set(this.#nextIndex++, item);
      // Its partition went to another member, which reads it again from the last commit: not sent from here.
      if (!this.#tracker.owns(item.state.ticket)) return { kind: 'skipped', location: item.draft.location, reason: REVOKED };
      const row = preparer(item.draft);
      const { message } = item;
      // A listing of `listings enqueue` is keyed by its content alone, as publish keys it: enqueued twice, created once.
      if (row.kind === 'ready' && listingFormatOf(message.headers) === undefined) row.idempotencyScope = `${message.topic}/${message.partition}/${message.offset}`;
      return row;
    });
  }

  /** Takes a fetched batch while there is room; the messages not taken are fetched again later. */
  async #take(batch: { partition: number; end: number; messages: StreamMessage[] }, control: BatchControl): Promise<void> {
    const max = Math.max(1, this.#options.maxBuffered ?? 4096);
    const mapper = (this.#mapper ??= createMessageMapper(this.#options.mapping ?? {}));
    this.#tracker.setEnd(batch.partition, batch.end);
    for (const message of batch.messages) {
      while (this.#buffered >= max) {
        if (this.#stopping || !control.owned()) return;
        await Promise.race([new Promise<void>((resolve) => this.#roomWaiters.push(resolve)), sleep(1000)]);
        try {
          await control.heartbeat();
        } catch {
          // A rebalance is under way: hand the batch back at once, or the group waits for this member to rejoin.
          return;
        }
      }
      if (this.#stopping || !control.owned()) return;
      if (!this.#tracker.isNew(message.partition, message.offset)) {
        control.accepted(message.offset);
        continue;
      }
      const mapped = mapper(message);
      const draft = mapped instanceof Promise ? await mapped : mapped;
      if (this.#stopping || !control.owned()) return;
      const ticket = this.#tracker.add(message.partition, message.offset);
      const drafts = fanOutDraft(draft, this.#marketplaces);
      const state: MessageState = { ticket, left: drafts.length, durable: true };
      this.#received++;
      control.accepted(message.offset);
      for (const listing of drafts) {
        const sku = listing.values.sku;
        const gateKey = sku === undefined ? undefined : `${listing.values.marketplace ?? ''}\u0000${sku}`;
        const item: Item = { message, draft: listing, state, gateKey };
        this.#buffered++;
        if (gateKey === undefined || this.#gate.enter(gateKey, item)) this.#feed.push(item);
      }
    }
  }


  /** An outcome: dead-letter it when it failed for good, mark it durable, let the next change of its SKU go. */
  async #settle(item: Item, outcome: RowOutcome, run: PublishRun): Promise<StreamOutcome> {
    const { message } = item;
    const finished = outcome.outcome !== 'not_attempted' && outcome.reason !== REVOKED && !(outcome.outcome === 'failed' && (UNFINISHED.has(outcome.reason ?? '') || run.end.kind !== 'completed'));
    let deadLettered = false;
    if (finished && (outcome.outcome === 'failed' || outcome.outcome === 'invalid') && this.#deadLetters !== undefined) {
      await this.#deadLetters.write(deadLetterOf(message, outcome, new Date()));
      deadLettered = true;
      this.#deadLettered++;
    }
    const { state } = item;
    if (!finished) {
      state.durable = false;
      this.#notDurable++;
    }
    if (--state.left === 0 && state.durable) this.#tracker.done(state.ticket);
    const latencyMs = Date.now() - message.timestamp;
    if (outcome.outcome === 'published') {
      this.#published++;
      this.#latency.add(latencyMs);
    }
    if (item.gateKey !== undefined) {
      const next = this.#gate.leave(item.gateKey);
      if (next !== undefined && !this.#feed.push(next)) this.#buffered--;
    }
    this.#buffered--;
    for (let waiter = this.#roomWaiters.shift(); waiter !== undefined; waiter = this.#roomWaiters.shift()) waiter();
    const key = message.key === null ? undefined : message.key.toString('utf8');
    return {
      message: { topic: message.topic, partition: message.partition, offset: message.offset, ...(key === undefined ? {} : { key }), timestamp: message.timestamp },
      outcome,
      deadLettered,
      durable: finished,
      latencyMs,
    };
  }

  #assigned(partitions: number[], log: KafkaLog): void {
    this.#joined = true;
    const now = new Set(partitions);
    const before = this.#tracker.assigned();
    for (const partition of before) if (!now.has(partition)) this.#tracker.revoke(partition);
    for (const partition of partitions) this.#tracker.assign(partition);
    const list = [...now].sort((a, b) => a - b).join(', ');
    log('info', `partitions of ${this.#address.topic} assigned to this process: ${list === '' ? 'none (more processes than partitions)' : list}`);
  }

  /** Commits what is durable; one commit at a time. The last one (`final`) reports a failure as the stream's end. */
  #commit(log: KafkaLog, final = false): Promise<void> {
    const commit = async (): Promise<void> => {
      const consumer = this.#consumer;
      const points = this.#tracker.committable();
      if (consumer === undefined || points.length === 0) return;
      try {
        // Dead letters first: an offset moves past a failed message only once its dead letter is safe.
        await this.#deadLetters?.flush();
        await consumer.commit(points);
        this.#tracker.committed(points);
        this.#commits++;
      } catch (error) {
        const message = `cannot commit offsets (${points.map((point) => `${point.partition}@${point.offset}`).join(', ')}): ${(error as Error).message}`;
        log(final ? 'error' : 'warn', `${message}${final ? '' : '; trying again'}`);
        if (final && this.#end.kind === 'running') this.#end = { kind: 'source', error };
      }
    };
    this.#committing = this.#committing.then(commit, commit);
    return this.#committing;
  }

  #beginStop(abandon: boolean): void {
    if (!this.#stopping) {
      this.#stopping = true;
      if (this.#end.kind === 'running') this.#end = { kind: 'stopped', abandoned: abandon };
      this.#consumer?.pause();
      this.#feed.close();
      this.#engineStop.abort();
      this.#drain = setTimeout(() => this.#engineAbandon.abort(), this.#options.drainTimeoutMs ?? 30_000).unref();
      for (let waiter = this.#roomWaiters.shift(); waiter !== undefined; waiter = this.#roomWaiters.shift()) waiter();
    }
    if (abandon) {
      if (this.#end.kind === 'stopped') this.#end = { kind: 'stopped', abandoned: true };
      this.#engineAbandon.abort();
    }
  }
}

/**
 * The feed with the settings judged by its first messages, as a publish run's by its first rows (see
 * createSettingsCheck): a setting that no default gives and none of them gives is one MissingSettingsError before
 * anything is sent, and their offsets are not committed. Only the messages that lack a needed setting, and so are
 * invalid anyway, wait for the judgment; with every needed setting defaulted the feed is read as it is.
 */
function checkedFeed(feed: MessageFeed<Item>, defaults: ListingDefaults): AsyncIterable<Item> {
  if (neededSettings(defaults).length === 0) return feed;
  const check = createSettingsCheck(defaults, FIRST_ROWS, messagesPlace);
  const items = new WeakMap<Draft, Item>();
  async function* drafts(): AsyncGenerator<Draft> {
    for await (const item of feed) {
      items.set(item.draft, item);
      yield item.draft;
    }
  }
  return (async function* checked(): AsyncGenerator<Item> {
    for await (const draft of await check(drafts())) yield items.get(draft) as Item;
  })();
}

function pick(options: StreamListingsOptions): PublishOptions {
  const { sender, concurrency, maxConcurrency, limiter, rate, giveUpAfterMs, retryBudget } = options;
  return {
    ...(sender === undefined ? {} : { sender }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
    ...(limiter === undefined ? {} : { limiter }),
    ...(rate === undefined ? {} : { rate }),
    ...(giveUpAfterMs === undefined ? {} : { giveUpAfterMs }),
    ...(retryBudget === undefined ? {} : { retryBudget }),
  };
}

async function openDeadLetters(options: StreamListingsOptions, log: KafkaLog): Promise<DeadLetterSink | undefined> {
  const target = options.deadLetter;
  if (target === undefined || typeof target !== 'string') return target;
  if (!isKafkaAddress(target)) return FileDeadLetters.open(target);
  const { KafkaDeadLetters } = await import('./kafka-client.js');
  return KafkaDeadLetters.open(parseKafkaAddress(target, 'deadLetter'), options.clientId ?? 'listings', log, options.security ?? {});
}
