import { createHash } from 'node:crypto';
import { OUTCOMES, type OutcomeKind } from '../../publish/outcome.js';
import { safeText } from '../row.js';
import { unreadText } from '../../catalog/unread.js';
import { TIME_BARS, WORK, chartLegend, latencyChart, outcomeBar, throughputChart } from './charts.js';
import { byMarketplace, errorsByStatus, metaList, tile, traffic, verdict } from './cards.js';
import type { HtmlReportInput } from './input.js';
import { problemsSection } from './problems.js';
import { SCRIPT } from './script.js';
import { STYLE } from './styles.js';
import { LABEL, escapeHtml, formatCount, formatDuration, formatMs, outside, percent, utc } from './text.js';
import type { RunDigest } from '../html-digest.js';
import type { RunSummary } from '../summary.js';

export type { HtmlReportInput } from './input.js';

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** A run charts when this many rows were worked (sent or checked) over at least this many bars of time. */
const CHART_MIN_ROWS = 10;
const CHART_MIN_BARS = 3;

/**
 * Throughput and time per row: two charts, or, for a run too short to draw (a few rows, a run stopped at its first
 * requests), one sentence that says what there was. A chart with nothing to draw is a sentence too.
 */
function timingSection(summary: RunSummary, digest: RunDigest): string {
  const timeline = digest.timeline(TIME_BARS);
  const worked = WORK.reduce((sum, kind) => sum + summary[kind], 0);
  const p50 = digest.latencyQuantile(0.5);
  const sent = p50 === undefined ? '' : `${formatCount(digest.latencyCount)} ${digest.latencyCount === 1 ? 'row' : 'rows'} sent, median ${formatMs(p50)}, slowest ${formatMs(digest.latencyMaxMs)}`;
  if (worked < CHART_MIN_ROWS || timeline.buckets.length < CHART_MIN_BARS) {
    const rows = `${formatCount(worked)} ${worked === 1 ? 'row' : 'rows'} ${summary.validated > 0 && summary.published + summary.failed === 0 ? 'checked' : 'sent or checked'}`;
    const sentence = `Too short to chart: ${rows} in ${formatDuration(summary.duration_ms)}${sent === '' ? '' : ` (${sent})`}. The charts start at ${CHART_MIN_ROWS} rows over ${formatMs(CHART_MIN_BARS * digest.bucketMs)}.`;
    return `<section class="card timing" aria-labelledby="tp-h"><h2 id="tp-h">Throughput and time per row</h2><p class="note" id="no-charts">${escapeHtml(sentence)}</p></section>\n`;
  }
  const throughputNote = `Rows finished per second: ${formatCount(summary.rows_per_second)} over the run, peak ${formatCount(Math.max(0, ...timeline.rates))}; bars of ${formatMs(timeline.bucketMs)}`;
  const latency =
    digest.latencyCount < CHART_MIN_ROWS
      ? `<p class="note">${escapeHtml(sent === '' ? 'No request was sent.' : `Too few requests to chart: ${sent}.`)}</p>`
      : `<p class="sub">${escapeHtml(`${sent}; all attempts included`)}</p>${latencyChart(digest)}${chartLegend((['published', 'failed'] as const).filter((kind) => digest.latency.some((bucket) => bucket[kind === 'published' ? 0 : 1] > 0)))}`;
  return [
    `<div class="grid2">`,
    `<section class="card" aria-labelledby="tp-h"><h2 id="tp-h">Throughput</h2><p class="sub">${escapeHtml(throughputNote)}</p>${throughputChart(digest)}${chartLegend(WORK.filter((kind) => summary[kind] > 0))}</section>`,
    `<section class="card" aria-labelledby="lat-h"><h2 id="lat-h">Time per row</h2>${latency}</section>`,
    `</div>\n`,
  ].join('');
}

/** Why a run stopped as a whole (the service could not be used), and its fix: before anything else on the page. */
function stoppedBanner(meta: HtmlReportInput['meta']): string {
  if (meta.stopped === undefined) return '';
  const fix = meta.stopped.hint === undefined ? '' : ` <b>Fix:</b> ${outside(meta.stopped.hint)}`;
  return `<p class="banner stop" role="alert" id="stopped"><b>Stopped: the service could not be used</b>: ${outside(meta.stopped.reason)}. No row after it was sent; the rows it refused are not at fault.${fix}</p>\n`;
}

/** The command that continues the work (src/run/next-step.ts), to copy. */
function nextStepBlock(meta: HtmlReportInput['meta']): string {
  const step = meta.nextStep;
  if (step === undefined || step === null) return '';
  return `<section class="card next" aria-labelledby="next-h" id="next-step"><h2 id="next-h">Next step</h2><p>${outside(step.why)}:</p><pre class="mono"><code>${outside(step.command)}</code></pre></section>\n`;
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
  const notRead = summary.total !== null && summary.total > summary.rows ? summary.total - summary.rows : undefined;
  // One base for every share on the page (tiles, legend, bar): the whole source when the rows not read are counted.
  const whole = summary.rows + (notRead ?? 0);
  const tiles = [
    tile('rows', summary.rows, whole, summary.complete ? 'the whole source' : notRead !== undefined ? `of ${formatCount(summary.total ?? 0)}` : 'source not read to the end'),
    ...(['published', 'failed', 'invalid', 'skipped', 'not_attempted'] as const).map((kind) => tile(kind, summary[kind], whole)),
    ...(summary.validated > 0 ? [tile('validated', summary.validated, whole)] : []),
  ].join('');
  const legendKinds: [OutcomeKind | 'not_read', number][] = [...OUTCOMES.map((kind) => [kind, summary[kind]] as [OutcomeKind, number]), ['not_read', notRead ?? 0]];
  const legend = legendKinds
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `<li class="f-${kind}"><span class="dot" aria-hidden="true"></span>${LABEL[kind]} <b>${formatCount(n)}</b> <span class="muted">${percent(n, whole)}</span></li>`)
    .join('');
  const banner = !summary.complete
    ? `<p class="banner" role="note">The run stopped before the end of the source${summary.interrupted ? ' (interrupted)' : ''}: ${notRead !== undefined ? `${formatCount(notRead)} rows were` : 'the rows after the last one counted were'} not read${summary.unread === undefined ? '' : ` (${escapeHtml(unreadText(summary.unread))})`}.</p>`
    : '';
  const exitBadge = meta.exitCode === undefined ? '' : `<span class="code" title="exit code">exit ${meta.exitCode}</span>`;
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
    stoppedBanner(meta),
    banner,
    nextStepBlock(meta),
    `<section aria-label="Counts" class="tiles">${tiles}</section>\n`,
    `<div class="grid2">`,
    `<section class="card" aria-labelledby="outcomes-h"><h2 id="outcomes-h">Outcomes</h2>${outcomeBar(summary)}<ul class="legend">${legend}</ul>${errorsByStatus(summary)}${byMarketplace(summary)}${traffic(summary)}</section>`,
    `<section class="card" aria-labelledby="run-h"><h2 id="run-h">Run</h2>${metaList(input, single)}</section>`,
    `</div>\n`,
    timingSection(summary, digest),
    problemsSection(input, single),
    `\n</main>\n<footer>Written by listings${meta.toolVersion === undefined ? '' : ` ${outside(meta.toolVersion)}`} on ${utc(input.openedAt)}. One self-contained file: no network, works offline.</footer>\n`,
    `<script>${SCRIPT}</script>\n</body>\n</html>\n`,
  ].join('');
}
