import type { ForwardResult } from './forward.js';
import type { ReplayEvent } from './replay.js';
import { redactPath } from './redact-path.js';
import type { CallbackEvent, ListenEvent } from './types.js';

/** The listener's events as JSON records, one a callback (`listings listen --json` prints one NDJSON line each). */

/** A forward's outcome: its status (or error) and time. */
export function forwardRecord(result: ForwardResult): Record<string, unknown> {
  return 'error' in result ? { ok: false, error: result.error, ms: result.ms } : { ok: result.ok, status: result.status, ms: result.ms };
}

/** A callback as received and answered; the body as JSON, else as text, else as base64. */
export function callbackRecord(event: CallbackEvent): Record<string, unknown> {
  const { summary, callback } = event;
  const line: Record<string, unknown> = {
    seq: event.seq,
    received_at: callback.receivedAt.toISOString(),
    outcome: event.outcome,
    http_status: event.status,
    method: callback.method,
    path: redactPath(callback.path),
  };
  if (event.reason !== undefined) line.reason = event.reason;
  for (const key of ['id', 'kind', 'sku', 'status'] as const) if (summary[key] !== undefined) line[key] = summary[key];
  if (summary.json !== undefined) line.body = summary.json;
  else if (summary.text !== undefined) line.text = summary.text;
  else if (callback.body.length > 0) line.body_base64 = callback.body.toString('base64');
  return line;
}

/**
 * The records complete after each event: a callback's at once, or, when it is forwarded, with its `forward` once
 * the forward is done. A recording error makes no record.
 */
export function eventRecords(): (event: ListenEvent) => Record<string, unknown>[] {
  const waiting = new Map<number, Record<string, unknown>>();
  return (event) => {
    if (event.type === 'record_error') return [];
    if (event.type === 'forward') {
      const line = waiting.get(event.seq);
      waiting.delete(event.seq);
      return line === undefined ? [] : [{ ...line, forward: forwardRecord(event.result) }];
    }
    const line = callbackRecord(event);
    if (!event.forwarding) return [line];
    waiting.set(event.seq, line);
    return [];
  };
}

/** A callback of a recording sent again, as a JSON record: its line, what it was, and how the forward went. */
export function replayRecord(event: Extract<ReplayEvent, { type: 'sent' }>): Record<string, unknown> {
  const { record, result } = event;
  return { line: event.line, method: record.method, path: record.path, received_at: record.received_at, forward: forwardRecord(result) };
}
