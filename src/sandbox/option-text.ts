import { SANDBOX_DEFAULTS } from './options.js';
import type { SandboxOptions, SandboxStats } from './types.js';

/** The faults the options inject, in words (`latency 10-50 ms, fail rate 0.2 (HTTP 503)`); undefined for none. */
export function describeFaults(options: SandboxOptions): string | undefined {
  const parts: string[] = [];
  const { latency: delay } = options;
  if (delay !== undefined) parts.push(`latency ${typeof delay === 'number' ? delay : `${delay.min}-${delay.max}`} ms`);
  if (options.failRate) parts.push(`fail rate ${options.failRate}${options.failStatus ? ` (HTTP ${options.failStatus})` : ''}`);
  if (options.rateLimit !== undefined) {
    const burst = options.rateBurst === undefined ? '' : `, burst ${options.rateBurst}`;
    parts.push(`rate limit ${options.rateLimit}/s (Retry-After ${options.retryAfterSeconds ?? SANDBOX_DEFAULTS.retryAfterSeconds}${burst})`);
  }
  if (options.capacity !== undefined) parts.push(`capacity ${options.capacity} (queue ${options.queue ?? 'unlimited'})`);
  if (options.dropRate) parts.push(`drop rate ${options.dropRate}`);
  if (options.spikeRate) parts.push(`latency spikes of ${options.spikeMs ?? SANDBOX_DEFAULTS.spikeMs} ms at rate ${options.spikeRate}`);
  if (options.seed !== undefined) parts.push(`seed ${options.seed}`);
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** What a sandbox did before it stopped, in words: its requests, and its webhooks when it sent any. */
export function stoppedLines(stats: SandboxStats): string[] {
  const hooks = stats.webhooks;
  return [
    `sandbox stopped: ${stats.requests} requests, ${stats.created} SKUs created, ${stats.replayed} replayed, ${stats.duplicates} duplicates`,
    ...(hooks === undefined ? [] : [`webhooks: ${hooks.sent} sent, ${hooks.delivered} delivered, ${hooks.failed_attempts} failed attempts, ${hooks.given_up} given up, ${hooks.pending} still pending, abandoned`]),
  ];
}
