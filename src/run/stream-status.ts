import { performance } from 'node:perf_hooks';
import { formatLocation } from '../errors.js';
import { printable } from '../printable.js';
import { shown } from './log-events.js';
import { count } from '../number-text.js';
import type { StreamOutcome, StreamStats } from '../stream/stream-types.js';
import type { StreamSummary } from './stream-run.js';

/* What a running stream's status shows, as text and as log fields: the CLI draws and prints them. */

function lagText(stats: StreamStats): string {
  const parts = stats.partitions.map((partition) => `${partition.partition}:${partition.lag === undefined ? '?' : count(partition.lag)}`);
  return parts.length === 0 ? 'no partitions yet' : `lag ${parts.join(' ')}`;
}

/** The status of a running stream in one line; `rate` is published messages per second over the last interval. */
export function streamStatusLine(stats: StreamStats, rate: number): string {
  const { engine } = stats;
  const parts = [
    `${count(stats.published)} published`,
    ...(stats.deadLettered > 0 ? [`${count(stats.deadLettered)} dead-lettered`] : []),
    `${count(Math.round(rate))}/s`,
    `${count(engine.inFlight)} in flight (limit ${count(engine.window)})`,
    ...(engine.pace === undefined ? [] : [`pace ${count(Math.round(engine.pace))}/s`]),
    ...(engine.throttled + engine.overloaded + engine.timeouts > 0 ? [`pushback ${count(engine.throttled + engine.overloaded + engine.timeouts)}`] : []),
    ...(stats.waitingForSku > 0 ? [`${count(stats.waitingForSku)} behind their SKU`] : []),
    lagText(stats),
  ];
  return parts.join(' · ');
}

/** The `stream_status` event's fields. */
export function streamStatusFields(stats: StreamStats, rate: number): Record<string, unknown> {
  return { published: stats.published, dead_lettered: stats.deadLettered, rate: Math.round(rate), in_flight: stats.engine.inFlight, limit: stats.engine.window, buffered: stats.buffered, partitions: stats.partitions };
}

/** Messages published per second, measured between reads at least half a second apart. */
export class PublishRate {
  #lastPublished = 0;
  #lastAt = performance.now();
  #rate = 0;

  /** The rate as of `stats`. */
  of(stats: StreamStats): number {
    const now = performance.now();
    const seconds = (now - this.#lastAt) / 1000;
    if (seconds >= 0.5) {
      this.#rate = (stats.published - this.#lastPublished) / seconds;
      this.#lastPublished = stats.published;
      this.#lastAt = now;
    }
    return this.#rate;
  }
}

/** `fanOut`: the stream publishes each message to several marketplaces, so a line names the one that failed. */
export function deadLetterLine(result: StreamOutcome, fanOut: boolean): string {
  const { outcome } = result;
  const on = fanOut && outcome.marketplace !== undefined ? ` on ${printable(outcome.marketplace)}` : '';
  const sku = outcome.sku === undefined ? on : ` (SKU ${printable(outcome.sku)}${on})`;
  const why = outcome.outcome === 'invalid' ? `invalid: ${outcome.error ?? ''}` : `${outcome.reason ?? 'failed'}${outcome.error === undefined ? '' : `: ${outcome.error}`}`;
  return `dead-lettered ${formatLocation(outcome.location)}${sku}: ${printable(why)}`;
}

/** The `dead_letter` event's fields. */
export function deadLetterFields({ outcome, message }: StreamOutcome): Record<string, unknown> {
  const text = (value: string | undefined): string | null => (value === undefined ? null : shown(value));
  return { location: shown(formatLocation(outcome.location)), partition: message.partition, offset: message.offset, sku: text(outcome.sku), marketplace: text(outcome.marketplace), outcome: outcome.outcome, reason: text(outcome.reason), error: text(outcome.error), status: outcome.httpStatus ?? null };
}

/** The end of a stream in plain lines: the latency (when any message was published), then the offsets committed. */
export function streamEndLines(stats: StreamStats, summary: StreamSummary): string[] {
  const committed = summary.partitions.map((partition) => `${partition.partition}@${partition.committed ?? '-'}`).join(' ');
  const { p50, p95, p99 } = summary.latency_ms;
  return [
    ...(p50 === undefined ? [] : [`latency (message timestamp to published): p50 ${count(p50)} ms · p95 ${count(p95 ?? 0)} ms · p99 ${count(p99 ?? 0)} ms`]),
    `committed offsets: ${committed === '' ? 'none' : committed} (${count(stats.commits)} ${stats.commits === 1 ? 'commit' : 'commits'})`,
  ];
}
