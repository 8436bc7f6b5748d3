import { createHash } from 'node:crypto';
import { OUTCOMES, type OutcomeKind } from '../publish/outcome.js';
import { safeText } from './row.js';
import { unreadText } from '../catalog/unread.js';
import type { RunMeta } from './run-meta.js';
import type { RunSummary } from './summary.js';
import { LATENCY_BUCKETS, LATENCY_STEPS_PER_DECADE, PROBLEMS, WORK_OUTCOMES, latencyBucketStart, type ErrorGroup, type ProblemRow, type RunDigest } from './html-digest.js';

/** What the page is drawn from. */
export interface HtmlReportInput {
  summary: RunSummary;
  meta: RunMeta;
  digest: RunDigest;
  /** When the report was opened: the start shown when the run did not say when it started. */
  openedAt: Date;
}

const LABEL: Record<OutcomeKind | 'not_read', string> = {
  published: 'Published',
  failed: 'Failed',
  invalid: 'Invalid',
  skipped: 'Skipped',
  not_attempted: 'Not attempted',
  validated: 'Validated',
  not_read: 'Not read',
};

/** Text from outside (a SKU, a message, a source name) made safe as HTML text or a quoted attribute value. */
export function escapeHtml(text: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let entity: string;
    if (c === 0x26) entity = '&amp;';
    else if (c === 0x3c) entity = '&lt;';
    else if (c === 0x3e) entity = '&gt;';
    else if (c === 0x22) entity = '&quot;';
    else if (c === 0x27) entity = '&#39;';
    else continue;
    out += text.slice(last, i) + entity;
    last = i + 1;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Outside text, with secrets masked and control characters written out, then escaped. */
function outside(text: string | undefined): string {
  return escapeHtml(safeText(text) ?? '');
}

/** 1234567 -> "1,234,567". */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Axis labels: 950, 1.2k, 34k, 1.5M. */
function compact(n: number): string {
  if (n >= 1e6) return `${trim(n / 1e6)}M`;
  if (n >= 1e3) return `${trim(n / 1e3)}k`;
  return trim(n);
}

function trim(n: number): string {
  return n >= 100 ? String(Math.round(n)) : String(Math.round(n * 10) / 10);
}

function percent(part: number, whole: number): string {
  if (whole <= 0 || part <= 0) return '0%';
  const p = (part * 100) / whole;
  if (p < 0.1) return '<0.1%';
  if (p > 99.9 && part < whole) return '>99.9%';
  return `${p < 10 ? Math.round(p * 10) / 10 : Math.round(p)}%`;
}

/** 850 ms, 3.4 s, 12 min 5 s, 2 h 3 min. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

function formatMs(ms: number): string {
  if (ms < 10) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Math.round(ms / 100) / 10} s`;
}

function utc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

// ---------------------------------------------------------------------------------------------------------------
// Charts: inline SVG, coloured by class so the light and dark themes apply to them too.

const W = 560;
const H = 230;
const M = { left: 46, right: 14, top: 26, bottom: 30 };
const PLOT_W = W - M.left - M.right;
const PLOT_H = H - M.top - M.bottom;

/** A round step that cuts 0..max into about `count` intervals. */
function niceStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

function n1(x: number): string {
  return String(Math.round(x * 10) / 10);
}

function svgOpen(id: string, title: string, desc: string): string {
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-t ${id}-d"><title id="${id}-t">${escapeHtml(title)}</title><desc id="${id}-d">${escapeHtml(desc)}</desc>`;
}

/** Horizontal grid lines and labels of a y axis from 0 to `max`; returns the scale's top. */
function yAxis(max: number, format: (n: number) => string, unit: string): { top: number; svg: string } {
  const step = niceStep(Math.max(max, 1e-9), 4);
  const top = Math.max(step, Math.ceil(max / step - 1e-9) * step);
  let svg = '';
  for (let v = 0; v <= top + step / 2; v += step) {
    const y = M.top + PLOT_H - (v / top) * PLOT_H;
    svg += `<line class="grid" x1="${M.left}" x2="${W - M.right}" y1="${n1(y)}" y2="${n1(y)}"/><text class="tick" x="${M.left - 6}" y="${n1(y + 3.5)}" text-anchor="end">${format(v)}</text>`;
  }
  svg += `<text class="unit" x="${M.left - 6}" y="${M.top - 12}" text-anchor="end">${escapeHtml(unit)}</text>`;
  return { top, svg };
}

function empty(id: string, title: string, text: string): string {
  return `${svgOpen(id, title, text)}<rect class="frame" x="${M.left}" y="${M.top}" width="${PLOT_W}" height="${PLOT_H}" rx="6"/><text class="none" x="${W / 2}" y="${M.top + PLOT_H / 2 + 4}" text-anchor="middle">${escapeHtml(text)}</text></svg>`;
}

/** Outcomes that are work done, stacked in the throughput chart from the bottom. */
const WORK: readonly OutcomeKind[] = WORK_OUTCOMES;

/** Time steps for the x axis, seconds. */
const TIME_STEPS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400];

function timeLabel(seconds: number): string {
  if (seconds === 0) return '0';
  if (seconds < 60) return `${trim(seconds)} s`;
  if (seconds < 3600) return `${trim(seconds / 60)} min`;
  return `${trim(seconds / 3600)} h`;
}

/** At most this many bars: a run of any length reads as one shape. */
const TIME_BARS = 30;

function throughputChart(d: RunDigest): string {
  const title = 'Throughput over time';
  const { buckets, bucketMs, rates: totals } = d.timeline(TIME_BARS);
  const seconds = bucketMs / 1000;
  const rates = buckets.map((bucket) => WORK.map((kind) => (bucket[OUTCOMES.indexOf(kind)] ?? 0) / seconds));
  const peak = Math.max(0, ...totals);
  if (peak === 0) return empty('tp', title, 'No row was sent or checked.');
  const spanMs = buckets.length * bucketMs;
  const { top, svg: axis } = yAxis(peak, compact, 'rows/s');
  const desc = `Rows finished per second, in bars of ${formatMs(bucketMs)}: peak ${formatCount(peak)} rows/s over ${formatDuration(d.lastAtMs)}.`;
  let svg = svgOpen('tp', title, desc) + axis;
  const slot = PLOT_W / buckets.length;
  const gap = slot > 4 ? Math.min(2, slot * 0.15) : 0;
  rates.forEach((series, i) => {
    let y = M.top + PLOT_H;
    const x = M.left + i * slot + gap / 2;
    const label = `${timeLabel((i * bucketMs) / 1000)}–${timeLabel(((i + 1) * bucketMs) / 1000)}: ${formatCount(totals[i] ?? 0)} rows/s`;
    let bars = '';
    series.forEach((rate, k) => {
      if (rate <= 0) return;
      const h = (rate / top) * PLOT_H;
      y -= h;
      bars += `<rect class="f-${WORK[k] ?? 'published'}" x="${n1(x)}" y="${n1(y)}" width="${n1(Math.max(slot - gap, 0.6))}" height="${n1(h)}"/>`;
    });
    if (bars !== '') svg += `<g><title>${escapeHtml(label)}</title>${bars}</g>`;
  });
  // x axis: a round time step giving at most 6 labels.
  const spanS = spanMs / 1000;
  const step = TIME_STEPS.find((s) => spanS / s <= 6) ?? spanS / 6;
  for (let t = 0; t <= spanS + 1e-9; t += step) {
    const x = M.left + (t / spanS) * PLOT_W;
    svg += `<line class="axis" x1="${n1(x)}" x2="${n1(x)}" y1="${M.top + PLOT_H}" y2="${M.top + PLOT_H + 4}"/><text class="tick" x="${n1(x)}" y="${H - 12}" text-anchor="${t === 0 ? 'start' : 'middle'}">${timeLabel(t)}</text>`;
  }
  svg += `<line class="axis" x1="${M.left}" x2="${W - M.right}" y1="${M.top + PLOT_H}" y2="${M.top + PLOT_H}"/>`;
  return `${svg}</svg>`;
}

function latencyLabel(ms: number): string {
  if (ms < 1000) return `${trim(ms)} ms`;
  return `${trim(ms / 1000)} s`;
}

function latencyChart(d: RunDigest): string {
  const title = 'Time per row';
  if (d.latencyCount === 0) return empty('lat', title, 'No request was sent.');
  let first = d.latency.findIndex(([p, f]) => p + f > 0);
  let last = LATENCY_BUCKETS - 1;
  while (last > first && (d.latency[last]?.[0] ?? 0) + (d.latency[last]?.[1] ?? 0) === 0) last--;
  // Whole decades, at least one: the axis reads 10 ms, 100 ms, 1 s.
  const step = LATENCY_STEPS_PER_DECADE;
  first = first === 0 ? 0 : 1 + Math.floor((first - 1) / step) * step;
  last = Math.min(LATENCY_BUCKETS - 1, Math.max(first + step, 1 + Math.ceil(last / step) * step) - 1);
  if (first === 0) last = Math.max(last, step);
  const count = last - first + 1;
  const peak = Math.max(...d.latency.slice(first, last + 1).map(([p, f]) => p + f));
  const p50 = d.latencyQuantile(0.5) ?? 0;
  const p95 = d.latencyQuantile(0.95) ?? 0;
  const p99 = d.latencyQuantile(0.99) ?? 0;
  const desc = `Time each sent row took, all attempts included, on a log scale: median ${formatMs(p50)}, 95th percentile ${formatMs(p95)}, 99th ${formatMs(p99)}, slowest ${formatMs(d.latencyMaxMs)}, over ${formatCount(d.latencyCount)} rows.`;
  // Headroom above the tallest bar for the percentile labels.
  const { top, svg: axis } = yAxis(peak * 1.2, compact, 'rows');
  let svg = svgOpen('lat', title, desc) + axis;
  const slot = PLOT_W / count;
  const gap = Math.min(2, slot * 0.15);
  for (let i = first; i <= last; i++) {
    const [published, failed] = d.latency[i] ?? [0, 0];
    if (published + failed === 0) continue;
    const x = M.left + (i - first) * slot + gap / 2;
    const range = i === 0 ? 'under 1 ms' : `${latencyLabel(latencyBucketStart(i))}–${latencyLabel(latencyBucketStart(i + 1))}`;
    let y = M.top + PLOT_H;
    let bars = '';
    for (const [value, kind] of [[published, 'published'], [failed, 'failed']] as const) {
      if (value === 0) continue;
      const h = Math.max((value / top) * PLOT_H, 1);
      y -= h;
      bars += `<rect class="f-${kind}" x="${n1(x)}" y="${n1(y)}" width="${n1(slot - gap)}" height="${n1(h)}"/>`;
    }
    svg += `<g><title>${escapeHtml(`${range}: ${formatCount(published)} published, ${formatCount(failed)} failed`)}</title>${bars}</g>`;
  }
  /** x of a latency on the log axis. */
  const xOf = (ms: number): number => {
    const position = ms < 1 ? ms : 1 + Math.log10(ms) * step;
    return M.left + ((Math.min(Math.max(position, first), last + 1) - first) / count) * PLOT_W;
  };
  for (let i = first === 0 ? 1 : first; i <= last + 1; i += step) {
    const x = M.left + ((i - first) / count) * PLOT_W;
    svg += `<line class="axis" x1="${n1(x)}" x2="${n1(x)}" y1="${M.top + PLOT_H}" y2="${M.top + PLOT_H + 4}"/><text class="tick" x="${n1(x)}" y="${H - 12}" text-anchor="middle">${latencyLabel(latencyBucketStart(i))}</text>`;
  }
  svg += `<line class="axis" x1="${M.left}" x2="${W - M.right}" y1="${M.top + PLOT_H}" y2="${M.top + PLOT_H}"/>`;
  // Percentile marks: each label right of its line (kept inside the chart), on the first row where it overlaps no
  // other label.
  const rows: [number, number][][] = [];
  for (const [name, value] of [['p50', p50], ['p95', p95], ['p99', p99]] as const) {
    const x = xOf(value);
    const text = `${name} ${formatMs(value)}`;
    const width = text.length * 6.2;
    const left = Math.min(x + 3, W - M.right - width);
    let row = rows.findIndex((taken) => taken.every(([a, b]) => left > b + 4 || left + width < a - 4));
    if (row === -1) row = rows.push([]) - 1;
    rows[row]?.push([left, left + width]);
    svg += `<line class="pct" x1="${n1(x)}" x2="${n1(x)}" y1="${M.top - 4 + row * 12}" y2="${M.top + PLOT_H}"/><text class="mark" x="${n1(left)}" y="${M.top + 4 + row * 12}">${text}</text>`;
  }
  return `${svg}</svg>`;
}

/** The outcomes as one bar of 100%, with the rows the run never read when their number is known. */
function outcomeBar(summary: RunSummary): string {
  const notRead = summary.total !== null && summary.total > summary.rows ? summary.total - summary.rows : 0;
  const parts: [OutcomeKind | 'not_read', number][] = [...OUTCOMES.map((kind) => [kind, summary[kind]] as [OutcomeKind, number]), ['not_read', notRead]];
  const whole = summary.rows + notRead;
  const shown = parts.filter(([, n]) => n > 0);
  const desc = shown.map(([kind, n]) => `${LABEL[kind]} ${formatCount(n)} (${percent(n, whole)})`).join(', ');
  const width = 1000;
  let svg = `<svg class="bar" viewBox="0 0 ${width} 28" preserveAspectRatio="none" role="img" aria-labelledby="ob-t"><title id="ob-t">${escapeHtml(whole === 0 ? 'No row was read.' : `Outcomes: ${desc}.`)}</title>`;
  if (whole === 0) return `${svg}<rect class="frame" x="0" y="0" width="${width}" height="28"/></svg>`;
  // Every outcome that happened stays visible, however small its share.
  const minimum = 4;
  const raw = shown.map(([, n]) => (n / whole) * width);
  const boosted = raw.map((w) => Math.max(w, minimum));
  const excess = boosted.reduce((a, b) => a + b, 0) - width;
  const shrinkable = boosted.reduce((a, w) => a + (w > minimum ? w - minimum : 0), 0);
  let x = 0;
  shown.forEach(([kind, n], i) => {
    const w0 = boosted[i] ?? 0;
    const w = excess > 0 && w0 > minimum ? w0 - ((w0 - minimum) / shrinkable) * excess : w0;
    svg += `<rect class="f-${kind}" x="${n1(x)}" y="0" width="${n1(w)}" height="28"><title>${escapeHtml(`${LABEL[kind]}: ${formatCount(n)} (${percent(n, whole)})`)}</title></rect>`;
    x += w;
  });
  return `${svg}</svg>`;
}

// ---------------------------------------------------------------------------------------------------------------
// The page.

function tile(kind: OutcomeKind | 'rows', count: number, whole: number, note = ''): string {
  const label = kind === 'rows' ? 'Rows read' : LABEL[kind];
  const share = kind === 'rows' ? note : percent(count, whole);
  return `<div class="tile t-${kind}${count === 0 && kind !== 'rows' ? ' zero' : ''}" data-count="${kind}"><span class="tile-label">${label}</span><span class="tile-value">${formatCount(count)}</span><span class="tile-note">${escapeHtml(share)}</span></div>`;
}

function verdict(summary: RunSummary, meta: RunMeta): { tone: 'good' | 'bad' | 'warn'; text: string } {
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

function metaList(input: HtmlReportInput, single: boolean): string {
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

function problemsSection(input: HtmlReportInput, single: boolean): string {
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
  const elsewhere = full.length > 0 ? `every row is in ${full.map((p) => `<span class="mono">${outside(p)}</span>`).join(' and ')}` : 'add <span class="mono">--report run.csv</span> to keep every row';
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

const STYLE = `
:root{color-scheme:light dark;--bg:#f4f6f8;--card:#fff;--fg:#1b2430;--muted:#5a6472;--border:#dde2e8;--grid:#e8ecf0;--axis:#9aa3ae;--accent:#2458c6;
--published:#007a5a;--failed:#c4410c;--invalid:#a86a00;--skipped:#6f7885;--not_attempted:#9b3f8c;--validated:#2767c9;--not_read:#c6ccd4;
--good-bg:#e3f4ec;--good-fg:#075e43;--bad-bg:#fbe7df;--bad-fg:#8f2d06;--warn-bg:#fbf0d9;--warn-fg:#6e4700}
@media (prefers-color-scheme:dark){:root{--bg:#0e1217;--card:#161b22;--fg:#e4e8ee;--muted:#9aa5b3;--border:#2b323c;--grid:#232a33;--axis:#5d6773;--accent:#79a7ff;
--published:#34c28f;--failed:#ff7a45;--invalid:#f2b53a;--skipped:#98a2ae;--not_attempted:#d68bc8;--validated:#6ea8ff;--not_read:#3a424d;
--good-bg:#0f2e23;--good-fg:#7fe0b7;--bad-bg:#3a1a10;--bad-fg:#ffb395;--warn-bg:#33280f;--warn-fg:#f5cd7a}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans","DejaVu Sans",Arial,sans-serif;-webkit-text-size-adjust:100%}
body{margin:0 auto;max-width:1180px;padding:28px 24px 40px}
h1,h2,h3{line-height:1.25;margin:0}
h1{font-size:1.55rem;font-weight:650;overflow-wrap:anywhere}
h2{font-size:1.05rem;font-weight:650;margin-bottom:12px}
h3{font-size:.95rem;font-weight:650;margin:22px 0 8px}
.muted{color:var(--muted);font-weight:400}
.mono,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.9em}
.eyebrow{color:var(--muted);font-size:.8rem;letter-spacing:.06em;text-transform:uppercase;font-weight:600;margin:0 0 4px}
header.top{display:flex;flex-wrap:wrap;align-items:flex-end;justify-content:space-between;gap:12px 24px;margin-bottom:20px}
.verdict{display:inline-flex;align-items:center;gap:10px;margin:0;padding:8px 14px;border-radius:999px;font-weight:600}
.verdict.good{background:var(--good-bg);color:var(--good-fg)}.verdict.bad{background:var(--bad-bg);color:var(--bad-fg)}.verdict.warn{background:var(--warn-bg);color:var(--warn-fg)}
.verdict .code{white-space:nowrap;font-size:.78rem;border:1.5px solid currentColor;border-radius:999px;padding:0 8px}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:12px;margin-bottom:16px}
.tile{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:12px 14px 10px;display:flex;flex-direction:column;position:relative;overflow:hidden}
.tile::before{content:"";position:absolute;left:0;top:0;bottom:0;width:4px;background:var(--c,var(--fg))}
.tile-label{font-size:.82rem;color:var(--muted);font-weight:600}
.tile-value{font-size:1.7rem;font-weight:650;font-variant-numeric:tabular-nums;line-height:1.2}
.tile-note{font-size:.8rem;color:var(--muted);min-height:1.2em}
.tile.zero .tile-value{color:var(--muted);font-weight:500}
.t-rows{--c:var(--accent)}.t-published,.p-published,.f-published{--c:var(--published)}.t-failed,.p-failed,.f-failed{--c:var(--failed)}.t-invalid,.p-invalid,.f-invalid{--c:var(--invalid)}
.t-skipped,.f-skipped{--c:var(--skipped)}.t-not_attempted,.p-not_attempted,.f-not_attempted{--c:var(--not_attempted)}.t-validated,.f-validated{--c:var(--validated)}.f-not_read{--c:var(--not_read)}
.grid2{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;margin-bottom:16px}
@media (max-width:860px){.grid2{grid-template-columns:minmax(0,1fr)}}
.card{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:16px 18px}
.card > p.sub{margin:-8px 0 8px;color:var(--muted);font-size:.85rem}
svg{display:block;width:100%;height:auto;overflow:visible}
svg text{fill:var(--muted);font-size:11px;font-family:inherit}
svg .tick{font-variant-numeric:tabular-nums}svg .unit{font-weight:600}
svg .mark{fill:var(--fg);font-size:10.5px;font-weight:600;paint-order:stroke;stroke:var(--card);stroke-width:3px;stroke-linejoin:round}
svg .none{font-size:13px}
svg .grid{stroke:var(--grid);stroke-width:1}svg .axis{stroke:var(--axis);stroke-width:1}
svg .frame{fill:none;stroke:var(--border);stroke-dasharray:4 4}
svg .pct{stroke:var(--fg);stroke-width:1;stroke-dasharray:2 3;opacity:.8}
svg rect[class^="f-"]{fill:var(--c)}
svg.bar{height:28px;border-radius:6px;overflow:hidden}
svg.bar .f-not_read{fill:var(--not_read)}
svg.bar rect{stroke:var(--card);stroke-width:2px;vector-effect:non-scaling-stroke}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;list-style:none;padding:0;margin:12px 0 0;font-size:.88rem}
.legend li{display:flex;align-items:center;gap:7px}
.legend b{font-variant-numeric:tabular-nums;font-weight:650}
.dot{display:inline-block;width:10px;height:10px;border-radius:3px;background:var(--c);flex:none}
.stats{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:10px;margin:16px 0 0;padding-top:14px;border-top:1px solid var(--grid)}
.stats dt{color:var(--muted);font-size:.8rem}.stats dd{margin:0;font-size:1.15rem;font-weight:650;font-variant-numeric:tabular-nums}
.stats .zero dd{color:var(--muted);font-weight:500}
.meta{display:grid;grid-template-columns:1fr;margin:0}
.meta div{display:grid;grid-template-columns:120px minmax(0,1fr);gap:12px;padding:5px 0;border-top:1px solid var(--grid)}
.meta div:first-child{border-top:0}
.meta dt{color:var(--muted);font-size:.86rem}.meta dd{margin:0;overflow-wrap:anywhere}
.meta .code{font-weight:700;font-variant-numeric:tabular-nums;margin-right:4px}
.problems .lede{margin:-6px 0 4px;color:var(--muted)}
.controls{display:flex;flex-wrap:wrap;align-items:center;gap:10px 16px;margin:14px 0 4px;padding:10px 12px;border:1px solid var(--border);border-radius:10px;background:var(--bg)}
.controls[hidden]{display:none}
fieldset{border:0;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:8px;align-items:center}
legend{float:left;margin-right:6px;color:var(--muted);font-size:.86rem;font-weight:600}
.check{display:inline-flex;align-items:center;gap:7px;padding:4px 10px;border:1px solid var(--border);border-radius:999px;background:var(--card);cursor:pointer;font-size:.88rem}
.check input{margin:0;accent-color:var(--c)}
.check:has(input:not(:checked)){opacity:.6}
.check:focus-within{outline:2px solid var(--accent);outline-offset:2px}
.search{flex:1 1 260px}
.search input{width:100%;font:inherit;color:var(--fg);background:var(--card);border:1px solid var(--border);border-radius:8px;padding:6px 10px}
.search input:focus{outline:2px solid var(--accent);outline-offset:1px}
.shown{margin:0;color:var(--muted);font-size:.86rem;flex-basis:100%}
.scroll{overflow:auto;max-height:640px;border:1px solid var(--border);border-radius:10px}
table{border-collapse:collapse;width:100%;font-size:.88rem}
th{position:sticky;top:0;background:var(--card);text-align:left;font-weight:600;color:var(--muted);font-size:.8rem;padding:7px 10px;border-bottom:1px solid var(--border);white-space:nowrap}
td{padding:6px 10px;border-top:1px solid var(--grid);vertical-align:baseline}
tbody tr:first-child td{border-top:0}
tbody tr:hover td{background:color-mix(in srgb,var(--accent) 6%,transparent)}
table.groups td:nth-child(1),table.groups th:nth-child(1),table.rows td:nth-child(1),table.rows th:nth-child(1){text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.groups td:nth-child(1){font-weight:650}
table.rows td:nth-child(1),table.rows td:nth-child(2){font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.82rem}
table.rows td:nth-child(2),table.groups td:nth-child(5){white-space:nowrap}
table.groups td:nth-child(3),table.rows td:nth-child(4){font-variant-numeric:tabular-nums;white-space:nowrap}
table.groups td:nth-child(4),table.rows td:nth-child(5){overflow-wrap:anywhere;min-width:18em}
td[class^="p-"]{white-space:nowrap}
td[class^="p-"]::before{content:"";display:inline-block;width:10px;height:10px;border-radius:3px;background:var(--c);margin-right:7px}
.note{color:var(--muted);font-size:.86rem;margin:8px 0 0}
.all-good{margin:0;color:var(--good-fg)}
.empty td{color:var(--muted);text-align:center;padding:14px}
.banner{margin:0 0 16px;padding:10px 14px;border-radius:10px;background:var(--warn-bg);color:var(--warn-fg)}
footer{margin-top:24px;color:var(--muted);font-size:.8rem;text-align:center}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media print{html{background:#fff}.controls{display:none}.scroll{max-height:none;overflow:visible}}
`;

/** The filter and search of the failures tables; the page reads whole without it. No network, no eval. */
const SCRIPT = `
(function () {
  var box = document.getElementById('filters');
  if (!box) return;
  box.hidden = false;
  var checks = Array.prototype.slice.call(box.querySelectorAll('input[type=checkbox]'));
  var search = document.getElementById('search');
  var shown = document.getElementById('shown');
  var tables = Array.prototype.slice.call(document.querySelectorAll('#problems tbody')).map(function (body) {
    var rows = Array.prototype.slice.call(body.querySelectorAll('tr[data-outcome]')).map(function (tr) {
      return { tr: tr, outcome: tr.getAttribute('data-outcome'), text: tr.textContent.toLowerCase() };
    });
    var empty = document.createElement('tr');
    empty.className = 'empty';
    empty.hidden = true;
    var cell = document.createElement('td');
    cell.colSpan = 5;
    cell.textContent = 'No row matches the filter.';
    empty.appendChild(cell);
    body.appendChild(empty);
    return { rows: rows, empty: empty };
  });
  function apply() {
    var on = {};
    checks.forEach(function (c) { on[c.value] = c.checked; });
    var words = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var counts = tables.map(function (table) {
      var visible = 0;
      table.rows.forEach(function (row) {
        var match = on[row.outcome] === true && words.every(function (w) { return row.text.indexOf(w) !== -1; });
        row.tr.hidden = !match;
        if (match) visible++;
      });
      table.empty.hidden = visible > 0;
      return visible.toLocaleString('en-US') + ' of ' + table.rows.length.toLocaleString('en-US');
    });
    shown.textContent = 'Showing ' + counts[0] + ' error groups and ' + counts[1] + ' rows.';
  }
  checks.forEach(function (c) { c.addEventListener('change', apply); });
  search.addEventListener('input', apply);
  apply();
})();
`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The whole page, self-contained: inline CSS, inline SVG charts, one small inline script for the filter. Its
 * Content-Security-Policy allows only that style and that script (by hash) and no connection at all, so nothing
 * in it reaches the network, and outside text that escaping had missed still could not run.
 */
export function renderHtmlReport(input: HtmlReportInput): string {
  const { summary, meta, digest } = input;
  const sources = meta.sources !== undefined && meta.sources.length > 0 ? meta.sources : digest.sources;
  const single = digest.sources.length <= 1 && digest.moreSources === 0;
  const name = sources.length === 0 ? 'listings run' : sources.length === 1 ? (sources[0] ?? '') : `${sources[0] ?? ''} and ${formatCount(sources.length - 1 + (meta.sources === undefined ? digest.moreSources : 0))} more`;
  const { tone, text } = verdict(summary, meta);
  const whole = summary.rows;
  const notRead = summary.total !== null && summary.total > summary.rows ? summary.total - summary.rows : undefined;
  const tiles = [
    tile('rows', summary.rows, whole, summary.complete ? 'the whole source' : notRead !== undefined ? `of ${formatCount(summary.total ?? 0)}` : 'source not read to the end'),
    ...(['published', 'failed', 'invalid', 'skipped', 'not_attempted'] as const).map((kind) => tile(kind, summary[kind], whole)),
    ...(summary.validated > 0 ? [tile('validated', summary.validated, whole)] : []),
  ].join('');
  const legendKinds: [OutcomeKind | 'not_read', number][] = [...OUTCOMES.map((kind) => [kind, summary[kind]] as [OutcomeKind, number]), ['not_read', notRead ?? 0]];
  const legend = legendKinds
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `<li class="f-${kind}"><span class="dot" aria-hidden="true"></span>${LABEL[kind]} <b>${formatCount(n)}</b> <span class="muted">${percent(n, whole + (notRead ?? 0))}</span></li>`)
    .join('');
  const banner = !summary.complete
    ? `<p class="banner" role="note">The run stopped before the end of the source${summary.interrupted ? ' (interrupted)' : ''}: ${notRead !== undefined ? `${formatCount(notRead)} rows were` : 'the rows after the last one counted were'} not read${summary.unread === undefined ? '' : ` (${escapeHtml(unreadText(summary.unread))})`}. <span class="mono">--retry-failed</span> of the CSV or NDJSON report sends them.</p>`
    : '';
  const exitBadge = meta.exitCode === undefined ? '' : `<span class="code" title="exit code">exit ${meta.exitCode}</span>`;
  const timeline = digest.timeline(TIME_BARS);
  const throughputNote = `Rows finished per second: ${formatCount(summary.rows_per_second)} over the run, peak ${formatCount(Math.max(0, ...timeline.rates))}; bars of ${formatMs(timeline.bucketMs)}`;
  const p50 = digest.latencyQuantile(0.5);
  const latencyNote = p50 === undefined ? 'all attempts of a row included' : `${formatCount(digest.latencyCount)} rows sent, median ${formatMs(p50)}, slowest ${formatMs(digest.latencyMaxMs)}; all attempts included`;
  const title = `${tone === 'good' ? '✓' : '✗'} ${safeText(name) ?? ''}: ${text}`;
  const csp = `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`;
  return [
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n`,
    `<meta http-equiv="Content-Security-Policy" content="${csp}">\n`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="color-scheme" content="light dark">\n`,
    `<meta name="generator" content="listings${meta.toolVersion === undefined ? '' : ` ${outside(meta.toolVersion)}`}">\n`,
    `<title>${escapeHtml(title)}</title>\n<style>${STYLE}</style>\n</head>\n<body>\n`,
    `<header class="top"><div><p class="eyebrow">listings ${meta.dryRun === true ? 'dry run' : 'publish'} report</p><h1>${outside(name)}</h1></div>`,
    `<p class="verdict ${tone}" id="verdict">${exitBadge}<span>${escapeHtml(text)}</span></p></header>\n<main>\n`,
    banner,
    `<section aria-label="Counts" class="tiles">${tiles}</section>\n`,
    `<div class="grid2">`,
    `<section class="card" aria-labelledby="outcomes-h"><h2 id="outcomes-h">Outcomes</h2>${outcomeBar(summary)}<ul class="legend">${legend}</ul>${errorsByStatus(summary)}${byMarketplace(summary)}${traffic(summary)}</section>`,
    `<section class="card" aria-labelledby="run-h"><h2 id="run-h">Run</h2>${metaList(input, single)}</section>`,
    `</div>\n<div class="grid2">`,
    `<section class="card" aria-labelledby="tp-h"><h2 id="tp-h">Throughput</h2><p class="sub">${escapeHtml(throughputNote)}</p>${throughputChart(digest)}${chartLegend(WORK.filter((kind) => summary[kind] > 0))}</section>`,
    `<section class="card" aria-labelledby="lat-h"><h2 id="lat-h">Time per row</h2><p class="sub">${escapeHtml(latencyNote)}</p>${latencyChart(digest)}${chartLegend((['published', 'failed'] as const).filter((kind) => digest.latency.some((bucket) => bucket[kind === 'published' ? 0 : 1] > 0)))}</section>`,
    `</div>\n`,
    problemsSection(input, single),
    `\n</main>\n<footer>Written by listings${meta.toolVersion === undefined ? '' : ` ${outside(meta.toolVersion)}`} on ${utc(input.openedAt)}. One self-contained file: no network, works offline.</footer>\n`,
    `<script>${SCRIPT}</script>\n</body>\n</html>\n`,
  ].join('');
}

function chartLegend(kinds: readonly OutcomeKind[]): string {
  if (kinds.length < 2) return '';
  return `<ul class="legend">${kinds.map((kind) => `<li class="f-${kind}"><span class="dot" aria-hidden="true"></span>${LABEL[kind]}</li>`).join('')}</ul>`;
}

/** What the requests met: the service's pushback is not failure, but it explains a slow run. */
function traffic(summary: RunSummary): string {
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
function byMarketplace(summary: RunSummary): string {
  const entries = Object.entries(summary.by_marketplace ?? {});
  if (entries.length === 0) return '';
  const kinds = OUTCOMES.filter((kind) => entries.some(([, counts]) => counts[kind] > 0));
  const head = `<tr><th scope="col">Marketplace</th><th scope="col">Rows</th>${kinds.map((kind) => `<th scope="col">${LABEL[kind]}</th>`).join('')}</tr>`;
  const rows = entries
    .map(([name, counts]) => `<tr><th scope="row">${outside(name)}</th><td>${formatCount(counts.rows)}</td>${kinds.map((kind) => `<td>${formatCount(counts[kind])}</td>`).join('')}</tr>`)
    .join('');
  return `<div class="scroll"><table class="groups" id="by-marketplace" aria-label="By marketplace"><thead>${head}</thead><tbody>${rows}</tbody></table></div>`;
}

function errorsByStatus(summary: RunSummary): string {
  const entries = Object.entries(summary.errors_by_status);
  if (entries.length === 0) return '';
  return `<p class="note">Errors by status: ${entries.map(([status, n]) => `<b>${escapeHtml(status)}</b> ×${formatCount(n)}`).join(', ')}</p>`;
}
