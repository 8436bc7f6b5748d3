import { PROBLEMS, type ErrorGroup, type ProblemRow } from '../html-digest.js';
import { libraryName } from '../../errors.js';
import type { HtmlReportInput } from './input.js';
import { LABEL, escapeHtml, formatCount, outside } from './text.js';

// The rows that did not publish: their errors grouped, then the first rows one by one, with a filter.

/** Characters of a message in the rows table (the grouped table shows it whole): 2,000 rows stay light. */
const ROW_MESSAGE_CHARS = 160;

function cut(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}

function where(source: string, line: number | undefined, single: boolean): string {
  if (single) return line === undefined ? '' : String(line);
  return outside(line === undefined ? source : `${source}:${line}`);
}

/** The HTTP status, `network` or `timeout`; a dash for a row never sent (its outcome says why). */
function statusText(status: string | undefined): string {
  return status === undefined || status === 'invalid' ? '—' : outside(status);
}

function groupRow(g: ErrorGroup, single: boolean): string {
  const first = [where(g.first.source, g.first.line, single), g.first.sku === undefined ? '' : `<span class="mono">${outside(g.first.sku)}</span>`].filter((s) => s !== '');
  const firstText = first.length === 0 ? '' : `${single ? 'line ' : ''}${first.join(' · ')}`;
  return `<tr data-outcome="${g.outcome}"><td>${formatCount(g.count)}</td><td class="p-${g.outcome}">${LABEL[g.outcome]}</td><td>${statusText(g.status)}</td><td>${outside(g.message)}${g.varies ? ' <span class="muted">(values vary: the first is shown)</span>' : ''}</td><td>${firstText}</td></tr>`;
}

/** One row of the rows table: lean markup (the columns are styled by position), there may be 2,000 of them. */
function problemRow(r: ProblemRow, single: boolean): string {
  return `<tr data-outcome="${r.outcome}"><td>${where(r.source, r.line, single)}</td><td>${outside(r.sku ?? '')}</td><td class="p-${r.outcome}">${LABEL[r.outcome]}</td><td>${statusText(r.status)}</td><td>${outside(cut(r.message, ROW_MESSAGE_CHARS))}</td></tr>`;
}

export function problemsSection(input: HtmlReportInput, single: boolean): string {
  const { digest, summary } = input;
  const counts = digest.problemCounts;
  const total = counts.failed + counts.invalid + counts.not_attempted;
  const checked = input.meta.dryRun === true || summary.validated > 0;
  const head = `<h2 id="problems-h">What did not ${checked ? 'pass' : 'publish'}</h2>`;
  if (total === 0) return `<section class="card problems" id="problems" aria-labelledby="problems-h">${head}<p class="all-good">Nothing to fix: no row failed, was invalid or was left unsent.</p></section>`;
  const present = PROBLEMS.filter((kind) => counts[kind] > 0);
  const groups = digest.groups();
  const ungrouped = PROBLEMS.reduce((a, kind) => a + digest.ungrouped[kind], 0);
  const full = summary.report.filter((path) => /\.(csv|ndjson|json)$/i.test(path));
  const elsewhere = full.length > 0 ? `every row is in ${full.map((p) => `<span class="mono">${outside(p)}</span>`).join(' and ')}` : `add <span class="mono">${escapeHtml((input.meta.name ?? libraryName)('report'))} run.csv</span> to keep every row`;
  const controls =
    `<div class="controls" id="filters" hidden><fieldset><legend>Show</legend>` +
    present.map((kind) => `<label class="check p-${kind}"><input type="checkbox" value="${kind}" checked>${LABEL[kind]} <span class="muted">${formatCount(counts[kind])}</span></label>`).join('') +
    `</fieldset><label class="search"><span class="visually-hidden">Search</span><input type="search" id="search" placeholder="Search SKU, line, status or message" autocomplete="off"></label><p class="shown" id="shown" role="status" aria-live="polite"></p></div>`;
  const groupTable =
    `<h3 id="groups-h">Errors, grouped <span class="muted">${formatCount(groups.length)} ${groups.length === 1 ? 'kind' : 'kinds'} over ${formatCount(total)} rows</span></h3>` +
    `<div class="scroll"><table class="groups" aria-labelledby="groups-h"><thead><tr><th scope="col">Rows</th><th scope="col">Outcome</th><th scope="col">Status</th><th scope="col">Message</th><th scope="col">First seen</th></tr></thead><tbody>` +
    groups.map((g) => groupRow(g, single)).join('') +
    `</tbody></table></div>` +
    (ungrouped > 0 ? `<p class="note">And ${formatCount(ungrouped)} rows with other messages (the report groups the first ${formatCount(digest.limits.groups)} kinds of error): ${elsewhere}.</p>` : '');
  const shownRows = digest.problems.length;
  const caption = shownRows < total ? `The first ${formatCount(shownRows)} of ${formatCount(total)} rows; ${elsewhere}.` : `All ${formatCount(total)} ${total === 1 ? 'row' : 'rows'}, in input order.`;
  const rowTable =
    `<h3 id="rows-h">Rows <span class="muted">${escapeHtml(caption.replace(/<[^>]*>/g, ''))}</span></h3>` +
    `<div class="scroll"><table class="rows" aria-labelledby="rows-h"><thead><tr><th scope="col">${single ? 'Line' : 'Location'}</th><th scope="col">SKU</th><th scope="col">Outcome</th><th scope="col">Status</th><th scope="col">Message</th></tr></thead><tbody>` +
    digest.problems.map((r) => problemRow(r, single)).join('') +
    `</tbody></table></div>` +
    (shownRows < total ? `<p class="note">${caption}</p>` : '');
  const counted = present.map((kind) => `${formatCount(counts[kind])} ${LABEL[kind].toLowerCase()}`).join(' · ');
  return `<section class="card problems" id="problems" aria-labelledby="problems-h">${head}<p class="lede">${counted}</p>${controls}${groupTable}${rowTable}</section>`;
}
