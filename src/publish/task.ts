import { ApiError, ListingsError } from '../errors.js';
import type { CreateListingResult } from '../client/listings-client.js';
import type { PreparedRow } from '../prepare/types.js';
import type { RowOutcome } from './outcome.js';

/** A row on its way to the service. */
export interface Task {
  index: number;
  row: Extract<PreparedRow, { kind: 'ready' }>;
  body: string;
  hash: string;
  key: string;
  /** `new` or `changed` under --changed-only. */
  reason: string | undefined;
  /** Requests sent for this row. */
  attempts: number;
  /** Of those, the ones the service answered with pushback (429, 503, timeouts). */
  pushbacks: number;
  startedAt: number;
  lastError: unknown;
}

export function publishedOutcome(task: Task, result: CreateListingResult, now: number): RowOutcome {
  const outcome: RowOutcome = {
    index: task.index,
    location: task.row.location,
    sku: task.row.sku,
    marketplace: task.row.request.marketplace,
    outcome: 'published',
    httpStatus: result.status,
    listingStatus: result.listing.status,
    title: result.listing.title,
    attempts: task.attempts,
    durationMs: Math.round(now - task.startedAt),
  };
  if (task.reason !== undefined) outcome.reason = task.reason;
  return outcome;
}

/** A row that reached the service and failed, with its last error. */
export function failedOutcome(task: Task, reason: string, now: number): RowOutcome {
  const error = task.lastError;
  const outcome: RowOutcome = {
    index: task.index,
    location: task.row.location,
    sku: task.row.sku,
    marketplace: task.row.request.marketplace,
    outcome: 'failed',
    reason,
    attempts: task.attempts,
    durationMs: Math.round(now - task.startedAt),
    error: error instanceof Error ? error.message : String(error),
  };
  if (error instanceof ApiError) outcome.httpStatus = error.status;
  if (error instanceof ListingsError) outcome.errorKind = error.kind;
  return outcome;
}

/** Why the service refused the whole run, in a few words (the run's end), and for the row's report line. */
export function describeRejected(error: unknown): { run: string; row: string } {
  if (!(error instanceof ApiError)) return { run: 'the service refused the request', row: 'refused' };
  const { status } = error;
  if (status === 401 || status === 403) return { run: `API key rejected (${error.message})`, row: 'API key rejected' };
  if (status >= 300 && status < 400) return { run: error.message, row: status === 304 ? 'service unusable' : 'redirect not followed' };
  return { run: `no listing operation here (${error.message})`, row: 'endpoint not found' };
}

export function hintOf(error: unknown): string | undefined {
  return error instanceof ListingsError ? error.hint : undefined;
}
