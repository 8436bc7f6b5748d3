// The only module that loads the Kafka client library (kafkajs: see the README for why that one). It is imported
// lazily by the stream, so `publish` never loads it.
import type * as KafkaJs from 'kafkajs';
import type { Consumer, KafkaConfig, KafkaMessage, LogEntry, Producer } from 'kafkajs';
import { NetworkError, SourceError } from '../errors.js';
import { redact } from '../secrets.js';
import type { KafkaAddress } from './kafka-address.js';
import type { CommitPoint } from './offset-tracker.js';
import type { StreamMessage } from './message-draft.js';
import type { DeadLetter, DeadLetterSink } from './dead-letter.js';
import type { KafkaSecurity } from './kafka-security.js';
import type { ListingProducer } from './enqueue.js';

export type KafkaLogLevel = 'error' | 'warn' | 'info';
export type KafkaLog = (level: KafkaLogLevel, message: string) => void;

/** What the consumer hands the stream, and what it asks of it. */
export interface ConsumerHandlers {
  /**
   * A fetched batch of one partition, in offset order. Call `accepted(offset)` for each message taken: the rest are
   * fetched again. Call `heartbeat()` while waiting; `owned()` turns false once the batch is stale (a rebalance).
   */
  onBatch(batch: { partition: number; end: number; messages: StreamMessage[] }, control: BatchControl): Promise<void>;
  /** This member's partitions after a (re)join. */
  onAssigned(partitions: number[]): void;
  /** A rebalance began: commit what is done while the partitions are still this member's. */
  onRebalancing(): void;
  /** The consumer stopped for good on an error it will not retry. */
  onCrash(error: Error): void;
}

export interface BatchControl {
  accepted(offset: number): void;
  heartbeat(): Promise<void>;
  owned(): boolean;
}

export interface ConsumerSettings {
  address: KafkaAddress;
  group: string;
  fromBeginning: boolean;
  sessionTimeoutMs: number;
  clientId: string;
  log: KafkaLog;
  security: KafkaSecurity;
}

export interface ConsumerHandle {
  commit(points: readonly CommitPoint[]): Promise<void>;
  /** Stop fetching (the messages already handed on go on). */
  pause(): void;
  /** Leave the group and close the connections. */
  disconnect(): Promise<void>;
}

type KafkaModule = typeof KafkaJs;

let kafkajs: Promise<KafkaModule> | undefined;

function loadKafka(): Promise<KafkaModule> {
  // Without this kafkajs warns about a producer partitioner change of 2022 on every start.
  process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
  return (kafkajs ??= import('kafkajs').then((module) => ((module as unknown as { default?: KafkaModule }).default ?? module)));
}

function kafkaConfig(kafka: KafkaModule, address: KafkaAddress, clientId: string, log: KafkaLog, security: KafkaSecurity): KafkaConfig {
  const { logLevel } = kafka;
  const levelOf = (level: KafkaJs.logLevel): KafkaLogLevel => (level === logLevel.ERROR ? 'error' : level === logLevel.WARN ? 'warn' : 'info');
  return {
    clientId,
    brokers: address.brokers,
    ...(security.tls === true ? { ssl: true } : {}),
    ...(security.sasl === undefined ? {} : { sasl: { ...security.sasl } as KafkaJs.SASLOptions }),
    connectionTimeout: 5000,
    logLevel: logLevel.WARN,
    retry: { retries: 5, initialRetryTime: 250, maxRetryTime: 5000 },
    logCreator:
      () =>
      ({ namespace, level, log: entry }: LogEntry) => {
        const extra = typeof entry.error === 'string' && !entry.message.includes(entry.error) ? `: ${entry.error}` : '';
        log(levelOf(level), redact(`kafka ${namespace}: ${entry.message}${extra}`));
      },
  };
}

function toMessage(topic: string, partition: number, message: KafkaMessage): StreamMessage {
  return {
    topic,
    partition,
    offset: Number(message.offset),
    key: message.key,
    value: message.value,
    timestamp: Number(message.timestamp),
    ...(message.headers === undefined ? {} : { headers: message.headers as Record<string, Buffer | string | undefined> }),
  };
}

function sourceError(address: KafkaAddress, error: unknown, doing: string): SourceError {
  const message = error instanceof Error ? error.message : String(error);
  return new SourceError({ source: `kafka://${address.brokers.join(',')}/${address.topic}` }, `${doing}: ${redact(message)}`, {
    cause: error,
    hint: 'check the brokers are reachable from here (HOST:PORT as the brokers advertise themselves) and the topic exists',
  });
}

/** Joins the group, subscribes to the topic and starts handing batches to `handlers`. Throws SourceError when it cannot. */
export async function startConsumer(settings: ConsumerSettings, handlers: ConsumerHandlers): Promise<ConsumerHandle> {
  const kafka = await loadKafka();
  const { address } = settings;
  const client = new kafka.Kafka(kafkaConfig(kafka, address, settings.clientId, settings.log, settings.security));
  const consumer: Consumer = client.consumer({
    groupId: settings.group,
    sessionTimeout: settings.sessionTimeoutMs,
    rebalanceTimeout: Math.max(settings.sessionTimeoutMs, 30_000),
    heartbeatInterval: Math.max(500, Math.floor(settings.sessionTimeoutMs / 6)),
    // Short fetch waits keep a stop prompt (and the latency low on servers that answer only at the wait's end);
    // an idle topic costs ten small requests per broker a second.
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  const { GROUP_JOIN, REBALANCING, CRASH } = consumer.events;
  consumer.on(GROUP_JOIN, (event) => handlers.onAssigned(event.payload.memberAssignment[address.topic] ?? []));
  consumer.on(REBALANCING, () => handlers.onRebalancing());
  const run = (): Promise<void> =>
    consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        // A batch handed over: the group works, so the restarts allowed begin again.
        restarts = 0;
        const { batch } = payload;
        const messages = batch.messages.map((message) => toMessage(batch.topic, batch.partition, message));
        await handlers.onBatch(
          { partition: batch.partition, end: Number(batch.highWatermark), messages },
          { accepted: (offset) => payload.resolveOffset(String(offset)), heartbeat: () => payload.heartbeat(), owned: () => payload.isRunning() && !payload.isStale() },
        );
      },
    });
  const join = async (): Promise<void> => {
    await consumer.connect();
    await consumer.subscribe({ topic: address.topic, fromBeginning: settings.fromBeginning });
    await run();
  };
  // kafkajs restarts the consumer after a crash it deems retriable. Brokers also answer a group join that races
  // another member's with errors it deems fatal (INVALID_REQUEST to a SyncGroup, seen with librdkafka's mock):
  // those are joined again a few times, with a growing pause, unless the error says access was refused.
  let restarts = 0;
  let stopped = false;
  consumer.on(CRASH, (event) => {
    const { error, restart } = event.payload;
    if (restart || stopped) return;
    if (restarts >= MAX_RESTARTS || isPermanent(error)) {
      handlers.onCrash(error);
      return;
    }
    restarts++;
    settings.log('warn', redact(`kafka consumer stopped (${error.message}); joining the group again (${restarts} of ${MAX_RESTARTS})`));
    setTimeout(() => {
      if (!stopped) join().catch((failure: unknown) => handlers.onCrash(failure instanceof Error ? failure : new Error(String(failure))));
    }, 500 * restarts).unref();
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: address.topic, fromBeginning: settings.fromBeginning });
  } catch (error) {
    await consumer.disconnect().catch(() => undefined);
    throw sourceError(address, error, `cannot join consumer group ${JSON.stringify(settings.group)}`);
  }
  await run();
  return {
    commit: (points) => consumer.commitOffsets(points.map((point) => ({ topic: address.topic, partition: point.partition, offset: String(point.offset) }))),
    pause: () => consumer.pause([{ topic: address.topic }]),
    disconnect: async () => {
      stopped = true;
      // Leaving the group lets the others take over at once; brokers that are gone must not hold the exit for long.
      await Promise.race([consumer.disconnect(), new Promise<void>((resolve) => setTimeout(resolve, DISCONNECT_WAIT_MS).unref())]);
    },
  };
}

/** Crashes of the consumer that are joined again in a row (without a batch between them), at most. */
const MAX_RESTARTS = 5;
const DISCONNECT_WAIT_MS = 5000;

/** Errors that another join cannot mend: credentials or rights refused. */
function isPermanent(error: Error): boolean {
  const type = (error as { type?: unknown }).type;
  return typeof type === 'string' && /AUTHORIZATION|AUTHENTICATION|SASL/.test(type);
}

/** Dead letters produced to a Kafka topic, keyed as the original message; a flush waits for every broker ack. */
export class KafkaDeadLetters implements DeadLetterSink {
  #letters: DeadLetter[] = [];
  #flushing: Promise<void> = Promise.resolve();

  private constructor(readonly name: string, private readonly topic: string, private readonly producer: Producer) {}

  static async open(address: KafkaAddress, clientId: string, log: KafkaLog, security: KafkaSecurity): Promise<KafkaDeadLetters> {
    const kafka = await loadKafka();
    const producer = new kafka.Kafka(kafkaConfig(kafka, address, clientId, log, security)).producer({ allowAutoTopicCreation: true, idempotent: false });
    try {
      await producer.connect();
    } catch (error) {
      throw sourceError(address, error, 'cannot connect to the dead-letter brokers');
    }
    return new KafkaDeadLetters(`kafka://${address.brokers.join(',')}/${address.topic}`, address.topic, producer);
  }

  async write(letter: DeadLetter): Promise<void> {
    this.#letters.push(letter);
    if (this.#letters.length >= 500) await this.flush();
  }

  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      if (this.#letters.length === 0) return;
      const letters = this.#letters;
      this.#letters = [];
      await this.producer.send({
        topic: this.topic,
        acks: -1,
        messages: letters.map((letter) => ({ key: letter.key ?? null, value: JSON.stringify(letter) })),
      });
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      await this.producer.disconnect();
    }
  }
}

/** The compressions `listings enqueue` offers: those kafkajs has without a codec package. */
export const COMPRESSIONS = ['gzip', 'none'] as const;
export type Compression = (typeof COMPRESSIONS)[number];

export interface ProducerSettings {
  address: KafkaAddress;
  clientId: string;
  log: KafkaLog;
  security: KafkaSecurity;
  compression: Compression;
}

/** A producer of one topic's listings (see ListingProducer), with its connection to close. */
export interface TopicProducer extends ListingProducer {
  close(): Promise<void>;
}

/**
 * Connects a producer for `listings enqueue`: one request in flight per broker (a partition keeps the order of its
 * messages, retries included), every in-sync replica acknowledging, keys partitioned as Java clients do (murmur2), so
 * a listing lands on the partition any Kafka tool would put it. Not Kafka's idempotent producer: a message a retry
 * writes twice is published once anyway (its Idempotency-Key is its content's), and some brokers (librdkafka's mock)
 * refuse kafkajs's producer-id request. Throws NetworkError when the brokers cannot be reached.
 */
export async function openListingProducer(settings: ProducerSettings): Promise<TopicProducer> {
  const kafka = await loadKafka();
  const { address } = settings;
  const producer = new kafka.Kafka(kafkaConfig(kafka, address, settings.clientId, settings.log, settings.security)).producer({
    maxInFlightRequests: 1,
    createPartitioner: kafka.Partitioners.DefaultPartitioner,
  });
  try {
    await producer.connect();
  } catch (error) {
    await producer.disconnect().catch(() => undefined);
    throw new NetworkError(`cannot connect to the brokers of kafka://${address.brokers.join(',')}/${address.topic}: ${redact(error instanceof Error ? error.message : String(error))}`, {
      cause: error,
      hint: 'check the brokers are reachable from here (HOST:PORT as the brokers advertise themselves), and their TLS and SASL settings',
    });
  }
  const compression = settings.compression === 'gzip' ? kafka.CompressionTypes.GZIP : kafka.CompressionTypes.None;
  return {
    send: async (messages) => {
      const written = await producer.send({ topic: address.topic, acks: -1, compression, messages: messages.map((message) => ({ key: message.key, value: message.value, headers: message.headers })) });
      return written.map((metadata) => metadata.partition);
    },
    close: () => producer.disconnect(),
  };
}
