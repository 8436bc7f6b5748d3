import type { CatalogNotice } from '../catalog/types.js';
import { shQuote } from '../options/completion/tree.js';
import { shellWord, shellWordsHidingValues } from '../shell-words.js';
import { redactSourceName } from '../secret-url.js';
import { redact } from '../secrets.js';

type Proposal = Extract<CatalogNotice, { kind: 'mapping-proposal' }>;

/**
 * The command that maps every proposed column at once: this run's own words (a source's credentials redacted, a
 * source header's value read from a variable) with a `--map` for each, and how to keep the mapping in a file for the
 * next runs (no profile key holds one).
 */
export function proposalCommands(notice: Proposal, argv: readonly string[] = process.argv.slice(2)): string[] {
  const maps = notice.proposal.map(({ field, column }) => `--map ${shellWord(`${field}=${column}`)}`);
  const { words, variables } = shellWordsHidingValues(argv.map((arg) => redact(redactSourceName(arg))), '--source-header', 'LISTINGS_SOURCE_HEADER');
  const run = ['listings', ...words, ...maps].join(' ');
  const json = JSON.stringify({ ...notice.given, ...Object.fromEntries(notice.proposal.map(({ field, column }) => [field, column])) });
  const set = variables.length === 0 ? '' : ` (first set ${variables.join(', ')}: a header's value is never shown)`;
  return [`map them all at once${set}:`, `  ${run}`, `or keep them for the next runs: printf '%s\\n' ${shQuote(json)} > mapping.json, then listings ${argv[0] ?? 'publish'} ... --mapping mapping.json`];
}
