import type { CatalogNotice } from '../catalog/types.js';
import { shQuote } from '../options/completion/tree.js';
import { secretFreeWords } from '../run/secret-free-words.js';
import { cliName } from './setting-flags.js';
import { shellWord } from '../shell-words.js';

type Proposal = Extract<CatalogNotice, { kind: 'mapping-proposal' }>;

/**
 * The command that maps every proposed column at once: this run's own words (a word with credentials and a source
 * header's value read from variables, never shown) with a `--map` for each, and how to keep the mapping in a file for the
 * next runs (no profile key holds one).
 */
export function proposalCommands(notice: Proposal, argv: readonly string[] = process.argv.slice(2)): string[] {
  const maps = notice.proposal.map(({ field, column }) => `--map ${shellWord(`${field}=${column}`)}`);
  const { words, set } = secretFreeWords(argv, cliName('sourceHeaders'));
  const run = ['listings', ...words, ...maps].join(' ');
  const json = JSON.stringify({ ...notice.given, ...Object.fromEntries(notice.proposal.map(({ field, column }) => [field, column])) });
  return [`map them all at once${set === '' ? '' : ` (${set})`}:`, `  ${run}`, `or keep them for the next runs: printf '%s\\n' ${shQuote(json)} > mapping.json, then listings ${argv[0] ?? 'publish'} ... --mapping mapping.json`];
}
