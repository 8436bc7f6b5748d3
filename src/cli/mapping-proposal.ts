import type { CatalogNotice } from '../catalog/types.js';
import { shQuote } from '../options/completion/tree.js';
import { redactSourceName } from '../secret-url.js';

type Proposal = Extract<CatalogNotice, { kind: 'mapping-proposal' }>;

/** A word as a shell reads it back: bare when it holds nothing a shell treats specially, else in single quotes. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : shQuote(text);
}

/**
 * The command that maps every proposed column at once: this run's own words (a source's credentials redacted) with a
 * `--map` for each, and how to keep the mapping in a file for the next runs (no profile key holds one).
 */
export function proposalCommands(notice: Proposal, argv: readonly string[] = process.argv.slice(2)): string[] {
  const maps = notice.proposal.map(({ field, column }) => `--map ${shellWord(`${field}=${column}`)}`);
  const run = ['listings', ...argv.map((arg) => shellWord(redactSourceName(arg))), ...maps].join(' ');
  const json = JSON.stringify({ ...notice.given, ...Object.fromEntries(notice.proposal.map(({ field, column }) => [field, column])) });
  return [`map them all at once:`, `  ${run}`, `or keep them for the next runs: echo ${shQuote(json)} > mapping.json, then listings ${argv[0] ?? 'publish'} ... --mapping mapping.json`];
}
