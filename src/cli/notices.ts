import type { CatalogNotice } from '../catalog/types.js';
import type { ListingDefaults } from '../prepare/types.js';
import { noticeMatters } from '../prepare/notice-matters.js';
import { err, paint } from './output.js';
import { printable } from '../printable.js';
import { proposalCommands } from './mapping-proposal.js';

/** `notice: catalog.csv: 0 of 194 rows have images_source (...)`, with how to name the column when there is none. */
export function noticeLine(notice: CatalogNotice): string {
  const hint = notice.kind === 'empty-field' && notice.inHeader === false ? `; name its column with --map ${notice.field}=COLUMN` : '';
  const head = `${paint.yellow('notice:')} ${printable(notice.message, { lines: false })}${hint}`;
  if (notice.kind !== 'mapping-proposal') return head;
  return [head, ...proposalCommands(notice).map((line) => `  ${printable(line, { lines: false })}`)].join('\n');
}

/**
 * The CLI's listener for a catalog's notices: prints each one that matters for this run once, on stderr (stdout
 * stays for results, so `--json` output is untouched). `write` lets a progress display print it above its line.
 */
export function noticePrinter(defaults: ListingDefaults, write: (line: string) => void = err): (notice: CatalogNotice) => void {
  const told = new Set<string>();
  return (notice) => {
    if (!noticeMatters(notice, defaults)) return;
    const line = noticeLine(notice);
    if (told.has(line)) return;
    told.add(line);
    write(line);
  };
}
