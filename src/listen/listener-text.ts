import { MAX_JSON_DEPTH } from '../json-text.js';
import { LISTEN_DEFAULTS } from './options.js';
import type { Listener, ListenOptions, ListenStats, RejectReason } from './types.js';

/* The listener's state in words: why a callback was refused, where it listens, what it did. */

/** Why a callback was refused, in words. */
export const REJECT_REASONS: Record<RejectReason, string> = {
  missing: 'no signature',
  malformed: 'malformed signature',
  expired: 'signature timestamp outside the tolerance',
  mismatch: 'signature does not match',
  too_large: 'body too large',
  too_deep: `JSON nested deeper than ${MAX_JSON_DEPTH}`,
  wrong_path: 'not the callback path',
  wrong_method: 'not POST or PUT',
  recording_behind: 'the recording is behind: its reader is not keeping up',
};

/** Where the listener is, as bound: a wildcard address is named, with the URL that reaches it from here. */
export function receivingAt(listener: Listener, path: string): string {
  const { host, port } = listener.address;
  if (host !== '0.0.0.0' && host !== '::') return listener.url;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}${path} (every interface; from this machine ${listener.url})`;
}

/** `listen stopped: 3 received, 1 rejected, 0 duplicates`, and the forwards when `forwarding`. */
export function stoppedText(stats: ListenStats, forwarding: boolean): string {
  const parts = [`${stats.received} received`, `${stats.rejected} rejected`, `${stats.duplicates} duplicates`];
  if (forwarding) parts.push(`${stats.forwarded} forwarded${stats.forward_failed > 0 ? ` (${stats.forward_failed} failed)` : ''}`);
  return `listen stopped: ${parts.join(', ')}`;
}

/** `limits: 1048576 bytes a body, JSON nested 64 deep, 10 s a request, 64 connections`: the listener's bounds, as given or by default. */
export function limitsText(options: ListenOptions): string {
  const limits = { ...LISTEN_DEFAULTS, ...options };
  return `limits: ${limits.maxBodyBytes} bytes a body, JSON nested ${MAX_JSON_DEPTH} deep, ${limits.requestTimeoutSeconds} s a request, ${limits.maxConnections} connections`;
}
