import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../../src/errors.js';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import { registerSecret } from '../../../src/secrets.js';
import { groupKey } from '../../../src/report/error-groups.js';
import { DIGEST_LIMITS, RunDigest, latencyBucketStart } from '../../../src/report/html-digest.js';
import { renderHtmlReport } from '../../../src/report/html/render.js';
import { escapeHtml, formatCount, formatDuration } from '../../../src/report/html/text.js';
import { openReport, reportFormatOf } from '../../../src/report/report-writer.js';
import { readRetryRows } from '../../../src/report/retry-rows.js';
import type { RunMeta } from '../../../src/report/run-meta.js';
import { SummaryCounter, type RunSummary } from '../../../src/report/summary.js';

const SECRET = 'sk_test_report_html_0123456789';
registerSecret(SECRET);

const HOSTILE = '<script>alert(1)</script>"\'&';

const at = (line: number, source = 'cat.csv') => ({ source, line });
const published = (i: number, durationMs = 40): RowOutcome => ({ index: i, location: at(i + 2), sku: `SKU-${i}`, outcome: 'published', httpStatus: 201, attempts: 1, durationMs });
const failed = (i: number, status = 500, error = `HTTP ${status} Internal Server Error`): RowOutcome => ({
  index: i, location: at(i + 2), sku: `SKU-${i}`, outcome: 'failed', httpStatus: status, reason: 'gave up after 5 attempts', error, attempts: 5, durationMs: 900,
});
const invalid = (i: number, error = `images_source[1]: not an absolute http(s) URL: "images/${i}.jpg"`): RowOutcome => ({
  index: i, location: at(i + 2), sku: `SKU-${i}`, outcome: 'invalid', error, attempts: 0, durationMs: 0,
});

const META: RunMeta = {
  sources: ['cat.csv'],
  profile: 'production',
  target: 'listings.example.com',
  marketplace: 'EBAY_US',
  startedAt: new Date('2025-11-24T03:14:05Z'),
  toolVersion: '9.9.9',
  exitCode: 1,
  why: '3 rows failed, 2 invalid; 2 published',
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-html-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeHtml(rows: Iterable<RowOutcome>, meta?: RunMeta, name = 'run.html'): Promise<{ html: string; summary: RunSummary; path: string }> {
  const path = join(dir, name);
  const report = await openReport(path);
  const counter = new SummaryCounter();
  for (const o of rows) {
    counter.add(o);
    await report.write(o);
  }
  const summary = counter.summary(4321, [path, join(dir, 'run.csv')], { requests: 12, throttled: 3, overloaded: 0, timeouts: 1, peakConcurrency: 4 });
  await report.close(summary, meta);
  return { html: await readFile(path, 'utf8'), summary, path };
}

/** The text of the page without its tags, entities decoded: what a reader sees. */
function visibleText(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>|<script>[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

describe('the .html report format', () => {
  it('is chosen by the extension', () => {
    expect(reportFormatOf('run.html')).toBe('html');
    expect(reportFormatOf('out/RUN.HTML')).toBe('html');
  });

  it('cannot be read back by --retry-failed, with a message that says which reports can', async () => {
    const path = join(dir, 'run.html');
    await writeFile(path, '<!doctype html>');
    const refused = readRetryRows(path);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(/an HTML report cannot be read back/);
    await expect(refused).rejects.toMatchObject({ hint: expect.stringMatching(/\.csv, \.json or \.ndjson/) as unknown });
  });

  it('the other formats ignore the metadata: their shape is documented', async () => {
    const rows = [published(0), failed(1)];
    for (const name of ['r.csv', 'r.json', 'r.ndjson']) {
      const write = async (meta?: RunMeta): Promise<string> => {
        const path = join(dir, name);
        const report = await openReport(path);
        const counter = new SummaryCounter();
        for (const o of rows) {
          counter.add(o);
          await report.write(o);
        }
        await report.close(counter.summary(10, [path]), meta);
        return readFile(path, 'utf8');
      };
      expect(await write(META)).toBe(await write());
    }
  });
});

describe('HTML report', () => {
  it('shows the counts, the metadata and the errors grouped, and never the key', async () => {
    const rows = [published(0), failed(1), failed(2), invalid(3), invalid(4), published(5), { ...failed(6, 502, `proxy said Bearer ${SECRET}`) }];
    const { html, summary } = await writeHtml(rows, META);
    const text = visibleText(html);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toMatch(/<tr data-outcome="failed"><td>2<\/td><td class="p-failed">Failed<\/td>/);
    expect(text).toContain('5 of 7 rows did not publish');
    for (const shown of ['production', 'listings.example.com', 'EBAY_US', '2025-11-24 03:14:05 UTC', '4.3 s', 'listings 9.9.9', 'Exit code 1 3 rows failed, 2 invalid; 2 published', 'run.csv']) {
      expect(text, shown).toContain(shown);
    }
    expect(html).toContain('<span class="code" data-meta="exit-code">1</span>');
    expect(html).toMatch(new RegExp(`data-count="failed"><span class="tile-label">Failed</span><span class="tile-value">${summary.failed}</span>`));
    // Two failures with one message: one line, counted 2; two invalid rows whose values differ: one line too.
    expect(text).toMatch(/2 Failed 500 HTTP 500 Internal Server Error \(gave up after 5 attempts\)/);
    expect(text).toMatch(/2 Invalid — images_source\[1\]: not an absolute http\(s\) URL: "images\/3\.jpg" \(values vary: the first is shown\)/);
    expect(html).not.toContain(SECRET);
    expect(text).toContain('proxy said Bearer ****');
  });

  it('breaks the counts down by marketplace when the rows went to several (names escaped)', async () => {
    const rows = [{ ...published(0), marketplace: 'EBAY_US' }, { ...published(1), marketplace: 'EBAY_GB' }, { ...failed(2), marketplace: 'EBAY_GB' }, { ...invalid(3), marketplace: HOSTILE }];
    const { html } = await writeHtml(rows, META);
    expect(html).toContain('id="by-marketplace"');
    const table = html.slice(html.indexOf('id="by-marketplace"'), html.indexOf('</table>', html.indexOf('id="by-marketplace"')));
    expect(visibleText(table)).toMatch(/EBAY_GB 2 1 1/);
    expect(visibleText(table)).toMatch(/EBAY_US 1 1 0/);
    expect(table).not.toContain('<script>');
    const single = await writeHtml([published(0), published(1)], META, 'single.html');
    expect(single.html).not.toContain('id="by-marketplace"');
  });

  it("lists as marketplaces only values rows went to: one refused for its marketplace is under (none), with its own table's layout", async () => {
    const refused: RowOutcome = { ...invalid(3, 'marketplace: "ebay" is the wrapped shape\'s form'), marketplace: 'ebay', issues: [{ path: 'marketplace', message: '"ebay" is the wrapped shape\'s form' }] };
    const otherIssue: RowOutcome = { ...invalid(4), marketplace: 'EBAY_GB', issues: [{ path: 'images_source[1]', message: 'not an absolute http(s) URL' }] };
    const rows = [{ ...published(0), marketplace: 'EBAY_US' }, { ...published(1), marketplace: 'EBAY_GB' }, { ...failed(2), marketplace: 'EBAY_GB' }, refused, otherIssue];
    const { html, summary } = await writeHtml(rows, META);
    expect(Object.keys(summary.by_marketplace ?? {})).toEqual(['(none)', 'EBAY_GB', 'EBAY_US']);
    const table = html.slice(html.indexOf('<table class="markets" id="by-marketplace"'), html.indexOf('</table>', html.indexOf('id="by-marketplace"')));
    expect(table).not.toBe('');
    expect(visibleText(table)).not.toContain('ebay');
    expect(visibleText(table)).toMatch(/EBAY_GB 3 1 1 1/);
    // Only US and a refused value: one marketplace, no table.
    const one = await writeHtml([{ ...published(0), marketplace: 'EBAY_US' }, refused], META, 'one.html');
    expect(one.summary.by_marketplace).toBeUndefined();
    expect(one.html).not.toContain('id="by-marketplace"');
  });

  it('escapes every text from outside: SKUs, messages, source names, metadata', async () => {
    const hostile: RowOutcome = { index: 0, location: at(2, `${HOSTILE}.csv`), sku: HOSTILE, outcome: 'failed', error: HOSTILE, reason: HOSTILE, attempts: 1, durationMs: 5 };
    const meta: RunMeta = { sources: [`${HOSTILE}.csv`], profile: HOSTILE, target: HOSTILE, marketplace: HOSTILE, toolVersion: HOSTILE };
    const { html } = await writeHtml([hostile], meta);
    // The page's own script is the only one, and no attribute or tag came from the data.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toMatch(/"'&(?!amp;|lt;|gt;|quot;|#39;)/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;');
    expect(visibleText(html)).toContain(HOSTILE);
  });

  it('writes control characters out and keeps only printable text', async () => {
    const { html } = await writeHtml([{ ...failed(0), sku: 'ctl\u0001\u001b[31m', error: 'bidi \u202e evil' }], META);
    expect(html).toContain('ctl\\u0001\\u001b[31m');
    expect(html).toContain('bidi \\u202e evil');
    for (const char of ['\u0001', '\u001b', '\u202e']) expect(html).not.toContain(char);
  });

  // Before: the SKU was kept and shown whole, in the list of rows and as the first row of its group: 20 rows with a
  // 300,000-character SKU made a 12 MB page (and held as much in memory through the run).
  it('cuts a huge SKU as it cuts a message: the page stays small', async () => {
    const huge = 'S'.repeat(300_000);
    const { html } = await writeHtml(Array.from({ length: 20 }, (_, i) => ({ ...failed(i), sku: `${huge}${i}` })), META);
    expect(html.length).toBeLessThan(200_000);
    expect(html).toMatch(/SSSS…/);
  });

  it('allows, by its Content-Security-Policy, exactly its own style and script and no connection', async () => {
    const { html } = await writeHtml([published(0), failed(1)], META);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    const hash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src ${hash(style)};`);
    expect(csp).toContain(`script-src ${hash(script)};`);
    // No inline handler, no link, no font, no image from anywhere.
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/@import|url\(/);
  });

  it('works without a script: the filter starts hidden, every row is in the page', async () => {
    const { html } = await writeHtml([failed(0), invalid(1), published(2)], META);
    expect(html).toContain('<div class="controls" id="filters" hidden>');
    const rowsTable = html.slice(html.indexOf('<table class="rows"'));
    expect(rowsTable.match(/<tr data-outcome="(failed|invalid)">/g)).toHaveLength(2);
  });

  it('says when nothing failed, and names a dry run', async () => {
    const validated: RowOutcome = { index: 0, location: at(2), sku: 'A', outcome: 'validated', attempts: 0, durationMs: 0 };
    const clean = visibleText((await writeHtml([published(0), published(1)], { ...META, exitCode: 0 })).html);
    expect(clean).toContain('All 2 rows published');
    expect(clean).toContain('Nothing to fix');
    const dry = visibleText((await writeHtml([validated], { dryRun: true }, 'dry.html')).html);
    expect(dry).toContain('listings dry run report');
    expect(dry).toContain('The row checked: none invalid');
    expect(dry).toContain('Too short to chart: 1 row checked in 4.3 s. The charts start at 10 rows over 300 ms.');
    expect((await writeHtml([validated], { dryRun: true }, 'dry.html')).html).not.toContain('<svg class="chart"');
  });

  it('without metadata (a library caller), still names the source and the start', async () => {
    const text = visibleText((await writeHtml([published(0), failed(1)])).html);
    expect(text).toMatch(/Source cat\.csv/);
    expect(text).toMatch(/Started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(text).not.toContain('Exit code');
  });

  it('says when the run stopped before the end of its source', () => {
    const counter = new SummaryCounter();
    const digest = new RunDigest();
    for (const o of [published(0), failed(1)]) {
      counter.add(o);
      digest.add(o, 10);
    }
    const summary = counter.summary(100, [], undefined, { complete: false, interrupted: true, notRead: 98 });
    const text = visibleText(renderHtmlReport({ summary, meta: { exitCode: 130 }, digest, openedAt: new Date() }));
    expect(text).toContain('Interrupted after 2 rows');
    expect(text).toContain('98 rows were not read');
    expect(text).toMatch(/Not read 98/);
    // One base for every share: 1 published of the 100 rows of the source, on its tile and in the legend.
    const html = renderHtmlReport({ summary, meta: { exitCode: 130 }, digest, openedAt: new Date() });
    expect(/data-count="published">.*?<span class="tile-note">([^<]*)<\/span>/.exec(html)?.[1]).toBe('1%');
    expect(/<li class="f-published">.*?<span class="muted">([^<]*)<\/span>/.exec(html)?.[1]).toBe('1%');
    expect(/<li class="f-not_read">.*?<span class="muted">([^<]*)<\/span>/.exec(html)?.[1]).toBe('98%');
    // Two rows in 100 ms: a sentence, not two empty charts.
    expect(text).toContain('Too short to chart: 2 rows sent or checked in 100 ms (2 rows sent, median');
    expect(html).not.toContain('<svg class="chart"');
  });

  it('draws both charts for a run long enough, and says when too few rows were sent to chart their time', () => {
    const digest = new RunDigest();
    const counter = new SummaryCounter();
    const rows: RowOutcome[] = Array.from({ length: 40 }, (_, i) => ({ index: i, location: at(i + 2), sku: `S-${i}`, outcome: 'validated', attempts: 0, durationMs: 0 }));
    rows.forEach((o, i) => {
      counter.add(o);
      digest.add(o, i * 25);
    });
    const dry = renderHtmlReport({ summary: counter.summary(1000, []), meta: { dryRun: true }, digest, openedAt: new Date() });
    expect(dry.match(/<svg class="chart"/g)).toHaveLength(1);
    expect(visibleText(dry)).toContain('Time per row No request was sent.');
    for (let i = 40; i < 50; i++) {
      const o = published(i, 30 + i);
      counter.add(o);
      digest.add(o, 1000 + i);
    }
    const sent = renderHtmlReport({ summary: counter.summary(1100, []), meta: {}, digest, openedAt: new Date() });
    expect(sent.match(/<svg class="chart"/g)).toHaveLength(2);
    expect(visibleText(sent)).toMatch(/10 rows sent, median \d+ ms, slowest 79 ms; all attempts included/);
  });

  it('draws throughput by when each answer came: written in one burst, rows answered at 300/s peak at 300/s', async () => {
    // What the engine hands on after a retry: row 0 answered last (5.2 s), the rest at the service's 300/s, all
    // reaching the report at once, in input order.
    const rows = Array.from({ length: 1500 }, (_, i) => ({ ...published(i), settledAtMs: i === 0 ? 5_200 : Math.floor((i * 1000) / 300) }));
    const { html } = await writeHtml(rows);
    const peak = Number(/Rows finished per second: [\d,.]+ over the run, peak ([\d,.]+);/.exec(visibleText(html))?.[1]?.replaceAll(',', ''));
    expect(peak).toBeGreaterThan(280);
    expect(peak).toBeLessThanOrEqual(310);
  });

  it('nothing at the path until close, nothing at all after abort', async () => {
    const path = join(dir, 'run.html');
    const report = await openReport(path);
    for (let i = 0; i < 100; i++) await report.write(failed(i));
    expect(await readdir(dir)).toEqual([expect.stringMatching(/^run\.html\.tmp-[0-9a-f]{12}$/)]);
    await report.abort();
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('RunDigest: bounded whatever the run', () => {
  it('merges time buckets as the run grows, keeping every row counted', () => {
    const digest = new RunDigest({ ...DIGEST_LIMITS, timeBuckets: 10 }, 100);
    for (let ms = 0; ms < 5000; ms += 10) digest.add(published(0), ms);
    expect(digest.buckets.length).toBeLessThanOrEqual(10);
    expect(digest.bucketMs).toBe(800);
    expect(digest.buckets.reduce((sum, b) => sum + (b[0] ?? 0), 0)).toBe(500);
    const timeline = digest.timeline(4);
    expect(timeline.bucketMs).toBe(1600);
    expect(timeline.rates[0]).toBe(100);
  });

  it('puts each time in the bucket that starts at or below it, and estimates percentiles from them', () => {
    expect(latencyBucketStart(1)).toBe(1);
    expect(latencyBucketStart(11)).toBe(10);
    const digest = new RunDigest();
    for (let i = 0; i < 1000; i++) digest.add(published(i, i < 900 ? 10 : 1000), 0);
    expect(digest.latency[11]).toEqual([900, 0]);
    expect(digest.latency[31]).toEqual([100, 0]);
    expect(digest.latencyQuantile(0.5)).toBeGreaterThanOrEqual(10);
    expect(digest.latencyQuantile(0.5)).toBeLessThan(12.6);
    expect(digest.latencyQuantile(0.99)).toBe(1000);
    // Rows never sent are not timed.
    digest.add(invalid(1), 0);
    expect(digest.latencyCount).toBe(1000);
  });

  it('keeps the first rows in detail, a bounded number of groups, and counts the rest', () => {
    const limits = { ...DIGEST_LIMITS, detailRows: 5, groups: 2, sources: 2 };
    const digest = new RunDigest(limits);
    // Sources are read one after the other (the objects under an s3:// prefix, say).
    for (let i = 0; i < 50; i++) digest.add({ ...failed(i, 500), location: at(i, `part-${Math.floor(i / 13)}.csv`) }, i);
    for (let i = 0; i < 7; i++) digest.add(failed(100 + i, 503, 'HTTP 503 Service Unavailable'), 100);
    for (let i = 0; i < 3; i++) digest.add(invalid(200 + i, 'sku: is required'), 100);
    expect(digest.problems).toHaveLength(5);
    expect(digest.problemCounts).toEqual({ failed: 57, invalid: 3, not_attempted: 0 });
    expect(digest.groups().map((g) => [g.status, g.count])).toEqual([['500', 50], ['503', 7]]);
    expect(digest.ungrouped).toEqual({ failed: 0, invalid: 3, not_attempted: 0 });
    expect(digest.sources).toEqual(['part-0.csv', 'part-1.csv']);
    expect(digest.moreSources).toBe(3); // part-2, part-3 and cat.csv
  });

  it('holds the same few things after 200,000 rows, and the page stays small', async () => {
    const digest = new RunDigest();
    for (let i = 0; i < 200_000; i++) {
      const o = i % 20 === 0 ? failed(i, 500 + (i % 7), `HTTP error ${i}: "${i}"`) : i % 33 === 0 ? invalid(i) : published(i, 5 + (i % 400));
      digest.add(o, i / 10);
    }
    expect(digest.buckets.length).toBeLessThanOrEqual(DIGEST_LIMITS.timeBuckets);
    expect(digest.problems).toHaveLength(DIGEST_LIMITS.detailRows);
    expect(digest.groups().length).toBe(8);
    const { html } = await writeHtml(function* () {
      for (let i = 0; i < 200_000; i++) yield i % 20 === 0 ? failed(i, 500 + (i % 7), `HTTP error ${i}`) : published(i);
    }());
    expect(Buffer.byteLength(html)).toBeLessThan(800_000);
    expect(visibleText(html)).toContain('The first 2,000 of 10,000 rows; every row is in');
  });
});

describe('text', () => {
  it.each([
    ['plain', 'plain'],
    ['a & b', 'a &amp; b'],
    ['<b class="x">it\'s</b>', '&lt;b class=&quot;x&quot;&gt;it&#39;s&lt;/b&gt;'],
  ])('escapeHtml(%j) = %j', (input, output) => {
    expect(escapeHtml(input)).toBe(output);
  });

  it.each([
    ['HTTP 500 Internal Server Error (gave up after 5 attempts)', 'HTTP # Internal Server Error (gave up after # attempts)'],
    ['images_source[1]: not an absolute http(s) URL: "images/a.jpg"', 'images_source[#]: not an absolute http(s) URL: "…"'],
    ['service asked to wait 120.5 s', 'service asked to wait # s'],
    // A server's message with a value in single quotes, or a bare URL: one kind of error whatever the value.
    ["image URL 'http://x/1.jpg' is not reachable", "image URL '…' is not reachable"],
    ["image URL 'https://cdn.example/a-b.png?w=1' is not reachable", "image URL '…' is not reachable"],
    ['could not fetch https://cdn.example/p/9.jpg: 404', 'could not fetch …: #'],
    // An apostrophe is no quote: the words around it stay.
    ["the wrapped shape's form; the flat shape's is EBAY_US", "the wrapped shape's form; the flat shape's is EBAY_US"],
    ["'ebay' is the wrapped shape's form", "'…' is the wrapped shape's form"],
  ])('groupKey(%j) = %j', (message, key) => {
    expect(groupKey(message)).toBe(key);
  });

  it.each([
    [0, '0 ms'],
    [850, '850 ms'],
    [3_420, '3.4 s'],
    [725_000, '12 min 5 s'],
    [7_380_000, '2 h 3 min'],
  ])('formatDuration(%d) = %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('formatCount groups thousands', () => {
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(formatCount(999)).toBe('999');
  });
});
