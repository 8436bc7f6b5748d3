import type { Registry } from 'prom-client';
import type { EngineObserver } from '../publish/engine-types.js';
import type { StreamStats } from './stream-types.js';

/** A stream worker's metrics, in the Prometheus exposition format, and the engine observer that feeds its histogram. */
export interface WorkerMetrics {
  /** The text a scrape of `/metrics` gets. */
  text(): Promise<string>;
  /** Its Content-Type (the exposition format's version). */
  readonly contentType: string;
  /** Feeds the request latency histogram; pass it as the run's `onEvent` (beside any other observer). */
  readonly observe: EngineObserver;
}

/** Request latency buckets, in seconds: from a fast local service to a listing API that fetches images. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The metrics of one `listings stream` worker, read from its stats at each scrape (nothing is counted on the hot
 * path but the latency histogram's one observation per answer). prom-client is loaded only when metrics are asked for.
 */
export async function createWorkerMetrics(stats: () => StreamStats | undefined, ready: () => boolean): Promise<WorkerMetrics> {
  const client = await import('prom-client');
  const registry: Registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'listings_' });
  // A counter that follows a running total the stream keeps: each scrape adds what the total grew by, so it stays
  // monotonic as Prometheus expects of a `_total`, and nothing is counted twice on the hot path.
  const total = (name: string, help: string, value: (s: StreamStats) => number): void => {
    let seen = 0;
    new client.Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const current = stats();
        if (current === undefined) return;
        const now = value(current);
        if (now > seen) this.inc(now - seen);
        seen = Math.max(seen, now);
      },
    });
  };
  total('listings_messages_consumed_total', 'Messages read from the topic.', (s) => s.received);
  total('listings_messages_published_total', 'Messages whose listing the service accepted.', (s) => s.published);
  total('listings_messages_failed_total', 'Messages that failed or were invalid (dead-lettered when a dead letter is set).', (s) => s.engine.failed);
  total('listings_messages_dead_lettered_total', 'Messages written to the dead letter.', (s) => s.deadLettered);
  total('listings_requests_total', 'Requests sent to the service, retries included.', (s) => s.engine.requests);
  total('listings_retries_total', 'Requests sent again.', (s) => s.engine.retries);
  total('listings_throttled_total', 'Answers that asked to slow down (429).', (s) => s.engine.throttled);
  total('listings_overloaded_total', 'Answers that said the service is overloaded (503 and the like).', (s) => s.engine.overloaded);
  total('listings_request_timeouts_total', 'Requests that got no answer in time.', (s) => s.engine.timeouts);
  total('listings_commits_total', 'Offset commits to the consumer group.', (s) => s.commits);
  const gauge = (name: string, help: string, value: (s: StreamStats) => number | undefined): void => {
    const read = (): number | undefined => {
      const current = stats();
      return current === undefined ? undefined : value(current);
    };
    new client.Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const v = read();
        if (v === undefined) this.reset();
        else this.set(v);
      },
    });
  };
  gauge('listings_in_flight', 'Requests in flight now.', (s) => s.engine.inFlight);
  gauge('listings_concurrency_limit', "The limiter's window: requests allowed in flight now.", (s) => s.engine.window);
  gauge('listings_pace_requests_per_second', 'The send pace kept after pushback (absent while nothing limits it).', (s) => s.engine.pace);
  gauge('listings_buffered_messages', 'Messages read and not yet given an outcome.', (s) => s.buffered);
  gauge('listings_circuit_open', '1 while the service looks down (the breaker is open), else 0.', (s) => (s.breaker === 'open' ? 1 : 0));
  new client.Gauge({
    name: 'listings_ready',
    help: '1 when the worker is in its group and the service is usable (what /readyz says), else 0.',
    registers: [registry],
    collect() {
      this.set(ready() ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'listings_partition_lag',
    help: 'Messages behind the end of each partition assigned to this worker, from its committed position.',
    labelNames: ['partition'],
    registers: [registry],
    collect() {
      this.reset();
      for (const partition of stats()?.partitions ?? []) if (partition.lag !== undefined) this.set({ partition: String(partition.partition) }, partition.lag);
    },
  });
  const latency = new client.Histogram({
    name: 'listings_request_duration_seconds',
    help: 'Time from sending a request to its answer (or its failure), by what the answer was.',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return {
    text: () => registry.metrics(),
    contentType: registry.contentType,
    observe: (event) => {
      if (event.type === 'answer') latency.observe({ outcome: event.kind }, event.ms / 1000);
    },
  };
}
