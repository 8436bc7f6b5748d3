import type { PreparedRow } from '../prepare/types.js';
import type { OutcomeKind, RowOutcome } from './outcome.js';
import { contentHash } from './idempotency.js';
import { inShard } from './shard.js';
import { publishedKey } from './journal.js';
import type { PublishOptions } from './engine-types.js';
import { stringifyJson } from '../json-number.js';

/** What the engine does with one row read: send it, or finish it here with an outcome. */
export type Selection =
  | { kind: 'send'; row: Extract<PreparedRow, { kind: 'ready' }>; body: string; hash: string; reason: string | undefined }
  | { kind: 'finished'; outcome: RowOutcome };

export type SelectionOptions = Pick<PublishOptions, 'shard' | 'retryOnly' | 'alreadyPublished' | 'changedOnly' | 'dryRun'>;

/**
 * Decide, without side effects, whether a row read at `index` is sent: skipped rows (by design, other shard, not
 * selected for retry, already published, unchanged), invalid rows and dry-run rows end here with their outcome.
 */
export function selectRow(index: number, row: PreparedRow, options: SelectionOptions): Selection {
  if (row.kind === 'skipped') return finished(index, row, 'skipped', row.reason);
  const { shard, retryOnly, alreadyPublished, changedOnly, dryRun } = options;
  if (shard !== undefined && !(row.sku === undefined ? shard.index === 1 : inShard(row.sku, shard))) return finished(index, row, 'skipped', 'other shard');
  if (retryOnly !== undefined && !retryOnly(row)) return finished(index, row, 'skipped', 'not selected for retry');
  if (row.kind === 'invalid') {
    const outcome = unsent(index, row, 'invalid', undefined);
    outcome.error = row.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    outcome.issues = row.issues;
    return { kind: 'finished', outcome };
  }
  const needsHash = !dryRun || alreadyPublished !== undefined || changedOnly !== undefined;
  const body = needsHash ? stringifyJson(row.request) : '';
  const hash = needsHash ? contentHash(body) : '';
  if (alreadyPublished?.has(publishedKey(row.sku, hash))) return finished(index, row, 'skipped', 'already published');
  let reason: string | undefined;
  if (changedOnly !== undefined) {
    const previous = changedOnly.get(row.request.marketplace, row.sku);
    if (previous === hash) return finished(index, row, 'skipped', 'unchanged');
    reason = previous === undefined ? 'new' : 'changed';
  }
  if (dryRun) {
    const outcome = unsent(index, row, 'validated', reason);
    if ('payload' in row.request) outcome.title = row.request.payload.title;
    return { kind: 'finished', outcome };
  }
  return { kind: 'send', row, body, hash, reason };
}

function finished(index: number, row: PreparedRow, kind: OutcomeKind, reason: string | undefined): Selection {
  return { kind: 'finished', outcome: unsent(index, row, kind, reason) };
}

/** The outcome of a row that was not sent (or not yet): no status, no attempts. */
export function unsent(index: number, row: PreparedRow, kind: OutcomeKind, reason: string | undefined): RowOutcome {
  const outcome: RowOutcome = { index, location: row.location, outcome: kind, attempts: 0, durationMs: 0 };
  if (row.sku !== undefined) outcome.sku = row.sku;
  const marketplace = row.kind === 'ready' ? row.request.marketplace : row.marketplace;
  if (marketplace !== undefined) outcome.marketplace = marketplace;
  if (reason !== undefined) outcome.reason = reason;
  return outcome;
}
