import { OUTCOMES, type OutcomeKind } from '../../publish/outcome.js';
import { safeText } from '../row.js';
import type { RunMeta } from '../run-meta.js';
import type { RunSummary } from '../summary.js';
import type { HtmlReportInput } from './input.js';
import { LABEL, escapeHtml, formatCount, formatDuration, outside, percent, utc } from './text.js';

// The page's counts and cards: the tiles, the verdict, the run's metadata, the traffic and the breakdowns.

export function tile(kind: OutcomeKind | 'rows', count: number, whole: number, note = ''): string {
  const label = kind === 'rows' ? 'Rows read' : LABEL[kind];
  const share = kind === 'rows' ? note : percent(count, whole);
  return `<div class="tile t-${kind}${count === 0 && kind !== 'rows' ? ' zero' : ''}" data-count="${kind}"><span class="tile-label">${label}</span><span class="tile-value">${formatCount(count)}</span><span class="tile-note">${escapeHtml(share)}</span></div>`;
}

export function verdict(summary: RunSummary, meta: RunMeta): { tone: 'good' | 'bad' | 'warn'; text: string } {
  const notDone = summary.failed + summary.invalid + summary.not_attempted;
  const rows = `${formatCount(summary.rows)} ${summary.rows === 1 ? 'row' : 'rows'}`;
  if (summary.interrupted) return { tone: 'warn', text: `Interrupted after ${rows}` };
  if (notDone > 0) return { tone: 'bad', text: `${formatCount(notDone)} of ${rows} did not ${meta.dryRun === true || summary.validated > 0 ? 'pass' : 'publish'}` };
  if (meta.exitCode !== undefined && meta.exitCode !== 0) return { tone: 'bad', text: `The run failed: ${safeText(meta.why) ?? `exit ${meta.exitCode}`}` };
  if (!summary.complete) return { tone: 'warn', text: `The run stopped after ${rows}` };
  if (summary.rows === 0) return { tone: 'warn', text: 'No row was read' };
  const all = summary.rows === 1 ? 'The row' : `All ${rows}`;
  if (summary.validated > 0) return { tone: 'good', text: `${all} checked: none invalid` };
  if (summary.published === 0) return { tone: 'good', text: `Nothing to publish: ${rows} skipped` };
  if (summary.skipped === 0) return { tone: 'good', text: `${all} published` };
  return { tone: 'good', text: `${all} done: ${formatCount(summary.published)} published, ${formatCount(summary.skipped)} skipped` };
}

export function metaList(input: HtmlReportInput, single: boolean): string {
  const { summary, meta, digest } = input;
  const items: [string, string][] = [];
  const sources = meta.sources !== undefined && meta.sources.length > 0 ? meta.sources : digest.sources;
  const more = meta.sources !== undefined && meta.sources.length > 0 ? 0 : digest.moreSources;
  if (sources.length > 0) {
    items.push([sources.length === 1 && single ? 'Source' : 'Sources', sources.map((s) => `<span class="mono">${outside(s)}</span>`).join('<br>') + (more > 0 ? `<br>and ${formatCount(more)} more` : '')]);
  }
  if (meta.profile !== undefined) items.push(['Profile', outside(meta.profile)]);
  if (meta.target !== undefined) items.push(['Target', `<span class="mono">${outside(meta.target)}</span>`]);
  if (meta.marketplace !== undefined) items.push(['Marketplace', outside(meta.marketplace)]);
  const started = meta.startedAt ?? input.openedAt;
  items.push(['Started', `<time datetime="${started.toISOString()}">${utc(started)}</time>`]);
  items.push(['Duration', `${formatDuration(summary.duration_ms)} · ${formatCount(summary.rows_per_second)} rows/s`]);
  if (meta.toolVersion !== undefined) items.push(['Tool', `listings ${outside(meta.toolVersion)}`]);
  if (meta.exitCode !== undefined) {
    items.push(['Exit code', `<span class="code" data-meta="exit-code">${meta.exitCode}</span>${meta.why === undefined ? '' : ` ${outside(meta.why)}`}`]);
  }
  const others = summary.report.filter((path) => !/\.html?$/i.test(path));
  if (others.length > 0) items.push(['Other reports', others.map((p) => `<span class="mono">${outside(p)}</span>`).join('<br>')]);
  return `<dl class="meta">${items.map(([k, v]) => `<div><dt>${k}</dt><dd>${v}</dd></div>`).join('')}</dl>`;
}

/** What the requests met: the service's pushback is not failure, but it explains a slow run. */
export function traffic(summary: RunSummary): string {
  if (summary.requests === 0) return '';
  const stats: [string, number][] = [
    ['Requests', summary.requests],
    ['Most at once', summary.peak_concurrency],
    ['Throttled (429)', summary.throttled],
    ['Overloaded (503)', summary.overloaded],
    ['Timed out', summary.timeouts],
  ];
  return `<dl class="stats">${stats.map(([k, v]) => `<div${v === 0 ? ' class="zero"' : ''}><dt>${k}</dt><dd>${formatCount(v)}</dd></div>`).join('')}</dl>`;
}

/** The counts of each marketplace, when the rows went to more than one (a fan-out, or a marketplace column). */
export function byMarketplace(summary: RunSummary): string {
  const entries = Object.entries(summary.by_marketplace ?? {});
  if (entries.length === 0) return '';
  const kinds = OUTCOMES.filter((kind) => entries.some(([, counts]) => counts[kind] > 0));
  const head = `<tr><th scope="col">Marketplace</th><th scope="col">Rows</th>${kinds.map((kind) => `<th scope="col">${LABEL[kind]}</th>`).join('')}</tr>`;
  const rows = entries
    .map(([name, counts]) => `<tr><th scope="row">${outside(name)}</th><td>${formatCount(counts.rows)}</td>${kinds.map((kind) => `<td>${formatCount(counts[kind])}</td>`).join('')}</tr>`)
    .join('');
  // Its own class: the error table's column rules (a wide, wrapping 4th column) would break its numbers.
  return `<div class="scroll by-market"><table class="markets" id="by-marketplace" aria-label="By marketplace"><thead>${head}</thead><tbody>${rows}</tbody></table></div>`;
}

export function errorsByStatus(summary: RunSummary): string {
  const entries = Object.entries(summary.errors_by_status);
  if (entries.length === 0) return '';
  return `<p class="note">Errors by status: ${entries.map(([status, n]) => `<b>${escapeHtml(status)}</b> ×${formatCount(n)}`).join(', ')}</p>`;
}
