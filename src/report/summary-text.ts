import type { FieldIssue } from '../contract/issues.js';
import { formatLocation, libraryName, SourceError, type Location, type NameSetting } from '../errors.js';
import { unreadText } from '../catalog/unread.js';
import type { PublishEnd } from '../publish/engine-types.js';
import type { RowOutcome } from '../publish/outcome.js';
import { serviceCause } from './ci-summary.js';
import { inert, inertShort } from '../printable.js';
import { count } from '../number-text.js';
import type { MarketplaceCounts, RunSummary } from './summary.js';

/* The lines of a run's results on a terminal, as plain text (the CLI colours and prints them). */

/** The most of a SKU, a marketplace or a field's path shown in a line (a real one is a few dozen characters). */
const VALUE_MAX = 100;

/**
 * `catalog.csv:17: sku X: HTTP 400 Bad Request: message`; with `marketplaces` (a run to several), `sku X on EBAY_GB:`.
 */
export function rowErrorLine(outcome: RowOutcome, marketplaces = false): string {
  // A SKU or a message from outside is shown, never obeyed (a line break in it could start a CI workflow command).
  // Each is cut (inertShort): a 300,000-character SKU still makes one line of a terminal.
  const on = marketplaces && outcome.marketplace !== undefined ? ` on ${inertShort(outcome.marketplace, VALUE_MAX)}` : '';
  const sku = outcome.sku === undefined ? (on === '' ? '' : `${on}:`) : ` sku ${inertShort(outcome.sku, VALUE_MAX)}${on}:`;
  const what = outcome.outcome === 'invalid' ? `invalid: ${outcome.error ?? ''}` : (outcome.error ?? outcome.reason ?? 'failed');
  return `${inert(formatLocation(outcome.location))}:${sku} ${inertShort(what)}`;
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
  const message = inertShort(issue.message);
  if (issue.path === '(record)') return `${where}: ${message}`;
  const on = marketplace === undefined ? '' : `[${inertShort(marketplace, VALUE_MAX)}] `;
  return `${where}: ${on}${inertShort(issue.path, VALUE_MAX)}: ${message}`;
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
function notReadText(summary: RunSummary): string {
  if (summary.complete) return '';
  if (summary.unread !== undefined) return `, and ${unreadText(summary.unread)}`;
  const left = summary.total === null ? undefined : summary.total - summary.rows;
  return left === undefined ? ', and the rest of the source not read' : `, and about ${count(left)} not read (of about ${count(summary.total ?? 0)})`;
}

/**
 * Why a run stopped early, for the terminal: its head word (`error`, `stopped`, `interrupted`), the words after it
 * (from their separator on), a hint and a line under it. Undefined for a run that completed. What to do next is the
 * next step's (src/run/next-step.ts).
 */
export interface RunEndText {
  head: 'error' | 'stopped' | 'interrupted';
  after: string;
  hint?: string;
  under?: string;
}

export function runEndText(end: PublishEnd, summary: RunSummary, name: NameSetting = libraryName): RunEndText | undefined {
  const left = `${count(summary.not_attempted)} ${summary.not_attempted === 1 ? 'row' : 'rows'} not attempted${notReadText(summary)}`;
  switch (end.kind) {
    case 'systemic':
      return {
        head: 'error',
        after: ` the service could not be used: ${serviceCause(end)}`,
        ...(end.hint ? { hint: end.hint } : {}),
        under: `  stopped after ${count(end.requests)} ${end.requests === 1 ? 'request' : 'requests'}; ${left}`,
      };
    case 'max-errors':
      return { head: 'stopped', after: ` after ${count(end.failed)} failed rows (${name('maxErrors')}); ${left}` };
    case 'interrupted':
      // What to do next is the next step's line, the same as every output says.
      return { head: 'interrupted', after: `: ${left}` };
    case 'source': {
      // The error itself (where, and why) is printed last, as the run's error.
      const at = end.error instanceof SourceError ? inert(formatLocation(end.error.location)) : undefined;
      if (summary.rows === 0) return { head: 'stopped', after: `: no row could be read from the source${at === undefined ? '' : ` (${at})`}` };
      return { head: 'stopped', after: `: the source could not be read${at === undefined ? '' : ` past ${at}`}: ${count(summary.rows)} ${summary.rows === 1 ? 'row' : 'rows'} read, ${left}` };
    }
    default:
      return undefined;
  }
}
