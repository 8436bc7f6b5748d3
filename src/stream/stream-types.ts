import type { ListingDefaults } from '../prepare/types.js';
import type { NameSetting } from '../errors.js';
import type { EngineStats, PublishEnd, PublishOptions } from '../publish/engine-types.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { DeadLetterSink } from './dead-letter.js';
import type { KafkaLog } from './kafka-client.js';
import type { KafkaSecurity } from './kafka-security.js';
import type { MessageMapping } from './message-draft.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

/** Options of {@link streamListings}. `source`, `group` and `sender` are required. */
export interface StreamListingsOptions
  extends Pick<PublishOptions, 'sender' | 'concurrency' | 'maxConcurrency' | 'limiter' | 'rate' | 'giveUpAfterMs' | 'retryPolicy' | 'retryBudget' | 'onEvent'> {
  /** `kafka://HOST:PORT[,HOST:PORT...]/TOPIC`. */
  source: string;
  /** The consumer group: processes with the same group share the topic's partitions. */
  group: string;
  /** Listing defaults (flat shape without saved defaults unless said otherwise), as for `publishCatalog`. */
  defaults?: Partial<ListingDefaults>;
  /** How a message's issue names a setting that would fill a missing field (the CLI passes its flag names). */
  name?: NameSetting;
  /** Renames, list separator and preset, as for a JSON catalog. */
  mapping?: MessageMapping;
  /**
   * Where messages that fail or are invalid go: an NDJSON file path, `kafka://.../TOPIC`, or a sink of your own. Their
   * offsets are committed once the dead letter is durable. Without it they are committed on their outcome alone.
   */
  deadLetter?: string | DeadLetterSink;
  /** A group with no committed offset starts at the topic's beginning (default) or its end. */
  fromBeginning?: boolean;
  /** How often durable progress is committed. Default 1,000 ms (and at every rebalance and at the end). */
  commitIntervalMs?: number;
  /** Messages read and not yet durable, at most; fetching pauses beyond it. Default 4,096. */
  maxBuffered?: number;
  /** The group's session timeout: how soon the others take over a process that died. Default 10,000 ms. */
  sessionTimeoutMs?: number;
  /** After a stop, how long requests in flight may take before they are abandoned. Default 30,000 ms. */
  drainTimeoutMs?: number;
  /** Stop fetching, let the requests in flight finish (up to `drainTimeoutMs`), commit, leave the group. */
  stop?: AbortSignal;
  /** As `stop`, but abandon the requests in flight at once. */
  abandon?: AbortSignal;
  clientId?: string;
  /** TLS and SASL for the brokers (the dead-letter topic's too). Default: plaintext. */
  security?: KafkaSecurity;
  /** Told of the consumer's own warnings and the stream's notices (assignments, commit failures). */
  onLog?: KafkaLog;
}

/** One message's outcome. */
export interface StreamOutcome {
  message: { topic: string; partition: number; offset: number; key?: string; timestamp: number };
  outcome: RowOutcome;
  /** True when the message went to the dead letter. */
  deadLettered: boolean;
  /**
   * False when the outcome is not final (the stream was stopping, or the service became unusable): the offset is
   * not committed and whoever reads the partition next sends the message again.
   */
  durable: boolean;
  /** From the message's timestamp to its outcome. */
  latencyMs: number;
}

/** Why a stream ended. */
export type StreamEnd =
  | { kind: 'running' }
  /** The stop or abandon signal. */
  | { kind: 'stopped'; abandoned: boolean }
  /** The service cannot be used (see PublishEnd `systemic`). */
  | Extract<PublishEnd, { kind: 'systemic' }>
  /** Kafka failed for good (the consumer crashed, a commit kept failing at the end). */
  | { kind: 'source'; error: unknown };

export interface PartitionProgress {
  partition: number;
  /** Messages read and not yet durable. */
  inProgress: number;
  /** The last committed offset (the next to read). */
  committed: number | undefined;
  /** Messages behind the partition's end, from the committed position. */
  lag: number | undefined;
}

export interface StreamStats {
  received: number;
  published: number;
  deadLettered: number;
  /** Outcomes not final (stopping): left uncommitted for the next reader. */
  notDurable: number;
  /** Messages read and not yet given an outcome. */
  buffered: number;
  /** Of those, waiting behind an earlier change of the same SKU. */
  waitingForSku: number;
  commits: number;
  /** In the consumer group now: joined (with partitions or none), not rebalancing, not ended. */
  joined: boolean;
  /** The service as the engine sees it: `open` while it looks down (nothing is sent but a probe). */
  breaker: BreakerState;
  /** From each published message's timestamp to its publication, in ms (within about 12%). */
  latency: { p50: number | undefined; p95: number | undefined; p99: number | undefined };
  partitions: PartitionProgress[];
  engine: EngineStats;
}
