import type { FieldIssue } from '../contract/issues.js';
import { formatLocation, type Location } from '../errors.js';
import { unreadText } from '../catalog/unread.js';
import type { RowOutcome } from '../publish/outcome.js';
import { inert } from '../printable.js';
import { count } from './numbers.js';
import type { MarketplaceCounts, RunSummary } from './summary.js';

/* The lines of a run's results on a terminal, as plain text (the CLI colours and prints them). */

/**
 * `catalog.csv:17: sku X: HTTP 400 Bad Request: message`; with `marketplaces` (a run to several), `sku X on EBAY_GB:`.
 */
export function rowErrorLine(outcome: RowOutcome, marketplaces = false): string {
  // A SKU or a message from outside is shown, never obeyed (a line break in it could start a CI workflow command).
  const on = marketplaces && outcome.marketplace !== undefined ? ` on ${inert(outcome.marketplace)}` : '';
  const sku = outcome.sku === undefined ? (on === '' ? '' : `${on}:`) : ` sku ${inert(outcome.sku)}${on}:`;
  const what = outcome.outcome === 'invalid' ? `invalid: ${outcome.error ?? ''}` : (outcome.error ?? outcome.reason ?? 'failed');
  return `${inert(formatLocation(outcome.location))}:${sku} ${inert(what)}`;
}

/**
 * `catalog.csv:17: [EBAY_US] images_source[1]: not an absolute URL`: the listing's marketplace in brackets when it
 * has one (a row published to several marketplaces is checked once per marketplace); a record the parser could not
 * read has neither marketplace nor field.
 */
export function errorLine(location: Location, issue: FieldIssue, marketplace?: string): string {
  // The file name, the message (and a marketplace from the catalog) may quote outside text: shown on this one line,
  // never obeyed (see inert).
  const where = inert(formatLocation(location));
  const message = inert(issue.message);
  if (issue.path === '(record)') return `${where}: ${message}`;
  const on = marketplace === undefined ? '' : `[${inert(marketplace)}] `;
  return `${where}: ${on}${inert(issue.path)}: ${message}`;
}

const KIND_LABELS: readonly [keyof MarketplaceCounts, string][] = [
  ['published', 'published'],
  ['validated', 'validated'],
  ['enqueued', 'enqueued'],
  ['failed', 'failed'],
  ['invalid', 'invalid'],
  ['skipped', 'skipped'],
  ['not_attempted', 'not attempted'],
];

/** `by marketplace: EBAY_GB 1,000 published; EBAY_US 998 published, 2 failed`: the counts that are not 0. */
export function marketplacesLine(byMarketplace: Record<string, MarketplaceCounts>): string {
  const parts = Object.entries(byMarketplace).map(([name, counts]) => {
    const kinds = KIND_LABELS.filter(([kind]) => counts[kind] > 0).map(([kind, label]) => `${count(counts[kind])} ${label}`);
    return `${inert(name)} ${kinds.length === 0 ? '0 rows' : kinds.join(', ')}`;
  });
  return `by marketplace: ${parts.join('; ')}`;
}

/**
 * `, about 880 not read` (or `, the rest of the source not read`) for a run that stopped before the end of its source;
 * for a source that stopped, what it left unread and why (unreadText).
 */
export function notReadText(summary: RunSummary): string {
  if (summary.complete) return '';
  if (summary.unread !== undefined) return `, and ${unreadText(summary.unread)}`;
  const left = summary.total === null ? undefined : summary.total - summary.rows;
  return left === undefined ? ', and the rest of the source not read' : `, and about ${count(left)} not read (of about ${count(summary.total ?? 0)})`;
}
