import { OUTCOMES, type OutcomeKind } from '../../publish/outcome.js';
import type { RunSummary } from '../summary.js';
import { LATENCY_BUCKETS, LATENCY_STEPS_PER_DECADE, WORK_OUTCOMES, latencyBucketStart, type RunDigest } from '../html-digest.js';
import { LABEL, compact, escapeHtml, formatCount, formatDuration, formatMs, percent, trim } from './text.js';

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
export const WORK: readonly OutcomeKind[] = WORK_OUTCOMES;

/** Time steps for the x axis, seconds. */
const TIME_STEPS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400];

function timeLabel(seconds: number): string {
  if (seconds === 0) return '0';
  if (seconds < 60) return `${trim(seconds)} s`;
  if (seconds < 3600) return `${trim(seconds / 60)} min`;
  return `${trim(seconds / 3600)} h`;
}

/** At most this many bars: a run of any length reads as one shape. */
export const TIME_BARS = 30;

export function throughputChart(d: RunDigest): string {
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

export function latencyChart(d: RunDigest): string {
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
export function outcomeBar(summary: RunSummary): string {
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

export function chartLegend(kinds: readonly OutcomeKind[]): string {
  if (kinds.length < 2) return '';
  return `<ul class="legend">${kinds.map((kind) => `<li class="f-${kind}"><span class="dot" aria-hidden="true"></span>${LABEL[kind]}</li>`).join('')}</ul>`;
}
