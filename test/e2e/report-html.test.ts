import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { HEADER, csvRow, publishEnv, readCsvReport } from '../helpers/publish.js';
import { unbundled } from '../helpers/bundle-sources.js';

/** Debian's chromium (`apt-get install chromium`); playwright-core drives it, no browser is downloaded. */
const CHROMIUM = process.env.LISTINGS_TEST_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
// The committed screenshot is retaken only when asked (UPDATE_SCREENSHOT=1), so a test run leaves the tree clean.
const SCREENSHOT = process.env.UPDATE_SCREENSHOT === '1' ? join(REPO_ROOT, 'docs', 'report-screenshot.png') : join(tempDir('listings-report-screenshot-'), 'report.png');
const HOSTILE_SKU = '<img src=x onerror="alert(1)">&amp;';

if (!hasChromium) {
  const line = '!'.repeat(100);
  console.warn(`\n${line}\n!! SKIPPED: the HTML report's browser test needs chromium at ${CHROMIUM} (apt-get install -y chromium).\n!! ${SCREENSHOT} was not regenerated.\n${line}\n`);
}

/** 400 rows: some with a relative image URL or no fulfillment policy (invalid), one with a SKU that is HTML. */
function writeCatalog(dir: string): string {
  const lines = [HEADER];
  for (let i = 0; i < 400; i++) {
    let row = csvRow(i);
    if (i === 7) row = row.replace(/^[^,]+/, `"${HOSTILE_SKU.replaceAll('"', '""')}"`).replace(/https:\/\/images\.example\.com\/7\/b\.jpg/, 'images/7-b.jpg');
    else if (i % 97 === 0) row = row.replace(`https://images.example.com/${i}/b.jpg`, `images/${i}-b.jpg`);
    else if (i % 151 === 0) row = row.replace(',FULFILL-1,', ',,');
    lines.push(row);
  }
  const path = join(dir, 'catalog.csv');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The counts of `--json`'s summary. */
interface Counts {
  rows: number;
  published: number;
  failed: number;
  invalid: number;
  skipped: number;
  not_attempted: number;
}

describe.skipIf(!hasChromium)(hasChromium ? 'the HTML report in a real browser' : `the HTML report in a real browser (SKIPPED: no ${CHROMIUM})`, () => {
  let sandbox: SandboxProcess;
  let browser: Browser;
  let dir: string;
  let report: string;
  let run: { code: number | null; stderr: string; summary: Counts };

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    const launched = chromium.launch({ executablePath: CHROMIUM });
    sandbox = await startSandboxProcess(['--latency', '2-30', '--fail-rate', '0.2', '--fail-status', '500', '--seed', '13']);
    dir = tempDir();
    report = join(dir, 'run.html');
    writeCatalog(dir);
    // Paths relative to the run's directory, as a CI job gives them (and as the screenshot shows them).
    const result = await runCli(['publish', 'catalog.csv', '--report', 'run.html', '--report', 'run.csv', '--json', '--max-attempts', '2', '--no-journal'], {
      cwd: dir,
      env: publishEnv(sandbox.url),
    });
    run = { code: result.code, stderr: result.stderr, summary: JSON.parse(result.stdout) as Counts };
    browser = await launched;
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  it('shows the counts and metadata of the run, fetches nothing, runs no script from the data, and filters', async () => {
    expect(run.code, run.stderr).toBe(1);
    const { summary } = run;
    expect(summary.failed).toBeGreaterThan(0);
    expect(summary.invalid).toBeGreaterThan(0);

    const page = await browser.newPage({ viewport: { width: 1240, height: 1400 } });
    const requests: string[] = [];
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // A blocked inline script or style (a hash that no longer matches) is reported on the console.
      if (message.type() === 'error') errors.push(message.text());
    });
    const url = pathToFileURL(report).href;
    await page.goto(url);

    // The tiles say what --json says.
    for (const kind of ['published', 'failed', 'invalid', 'skipped', 'not_attempted'] as const) {
      expect(await page.locator(`[data-count="${kind}"] .tile-value`).textContent(), kind).toBe(summary[kind].toLocaleString('en-US'));
    }
    expect(await page.locator('[data-count="rows"] .tile-value').textContent()).toBe(summary.rows.toLocaleString('en-US'));
    const verdict = await page.locator('#verdict').textContent();
    expect(verdict).toContain(`${(summary.failed + summary.invalid).toLocaleString('en-US')} of ${summary.rows.toLocaleString('en-US')} rows did not publish`);
    // The metadata the run passed at close; never the key.
    const meta = await page.locator('dl.meta').textContent();
    expect(meta).toContain('catalog.csv');
    expect(meta).toContain(new URL(sandbox.url).host);
    expect(meta).toContain((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version);
    expect(await page.locator('[data-meta="exit-code"]').textContent()).toBe(String(run.code));
    expect(readFileSync(report, 'utf8')).not.toContain('sandbox-key');
    // Three charts, drawn inline.
    expect(await page.locator('svg[role="img"]').count()).toBe(3);
    expect(await page.locator('svg.chart rect').count()).toBeGreaterThan(10);

    // The CSP admitted the page's own style and script (the filter shows itself), and nothing else happened.
    const filters = page.locator('#filters');
    await expect.poll(() => filters.isVisible()).toBe(true);
    // Expressions, not functions: the tests are typed without the DOM library.
    expect(await page.evaluate('document.scripts.length')).toBe(1);
    expect(await page.evaluate('getComputedStyle(document.body).maxWidth')).toBe('1180px');

    // The hostile SKU is text in the table, not markup.
    const hostile = page.locator('table.rows tr', { hasText: HOSTILE_SKU });
    expect(await hostile.count()).toBe(1);
    expect(await page.locator('table.rows img').count()).toBe(0);

    // Grouped: the failed rows (one injected fault) are one line per reason (retries exhausted, or the retry
    // budget spent), each with its count.
    const csv = readCsvReport(join(dir, 'run.csv'));
    const reasons = new Set(csv.filter((row) => row.outcome === 'failed').map((row) => row.reason));
    const groups = page.locator('table.groups tbody tr[data-outcome="failed"]');
    expect(await groups.count()).toBe(reasons.size);
    const counts = await groups.locator('td:first-child').allTextContents();
    expect(counts.reduce((sum, n) => sum + Number(n.replaceAll(',', '')), 0)).toBe(summary.failed);
    for (const message of await groups.locator('td:nth-child(4)').allTextContents()) expect(message).toContain('injected fault');

    const rows = page.locator('table.rows tbody tr[data-outcome]');
    const visible = (outcome?: string): Promise<number> =>
      page.locator(`table.rows tbody tr${outcome === undefined ? '[data-outcome]' : `[data-outcome="${outcome}"]`}:not([hidden])`).count();
    expect(await rows.count()).toBe(summary.failed + summary.invalid);

    // Filter by outcome: without the failed rows, only the invalid ones are left.
    await page.getByRole('checkbox', { name: /Failed/ }).uncheck();
    expect(await visible()).toBe(summary.invalid);
    expect(await visible('failed')).toBe(0);
    expect(await page.locator('#shown').textContent()).toContain(`${summary.invalid} of ${summary.failed + summary.invalid} rows`);
    await page.getByRole('checkbox', { name: /Failed/ }).check();

    // Search: one failed SKU, by the CSV report.
    const failedSku = csv.find((row) => row.outcome === 'failed')?.sku ?? '';
    await page.getByRole('searchbox').fill(failedSku.toLowerCase());
    expect(await visible()).toBe(1);
    expect(await page.locator('table.rows tbody tr:not([hidden]) td:nth-child(2)').textContent()).toBe(failedSku);
    await page.getByRole('searchbox').fill('no such thing anywhere');
    expect(await visible()).toBe(0);
    expect(await page.locator('table.rows tr.empty').isVisible()).toBe(true);
    await page.getByRole('searchbox').fill('');
    await page.getByRole('searchbox').blur();
    expect(await visible()).toBe(summary.failed + summary.invalid);

    // The screenshot the README shows: the top of the page, as someone opening it sees it.
    await page.screenshot({ path: SCREENSHOT, clip: { x: 0, y: 0, width: 1240, height: 1400 } });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(20_000);

    // Light and dark follow the reader's colour scheme.
    const background = async (colorScheme: 'light' | 'dark'): Promise<number> => {
      await page.emulateMedia({ colorScheme });
      const rgb = await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');
      return (rgb.match(/\d+/g) ?? []).slice(0, 3).reduce((sum, v) => sum + Number(v), 0);
    };
    expect(await background('dark')).toBeLessThan(120);
    expect(await background('light')).toBeGreaterThan(600);

    expect(requests).toEqual([url]);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('reads whole with JavaScript off: every table row shown, the filter (which needs a script) hidden', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(pathToFileURL(report).href);
    expect(await page.locator('#filters').isVisible()).toBe(false);
    expect(await page.locator('table.rows tbody tr[data-outcome]:visible').count()).toBe(run.summary.failed + run.summary.invalid);
    expect(await page.locator('[data-count="published"] .tile-value').textContent()).toBe(run.summary.published.toLocaleString('en-US'));
    await context.close();
  });
});

// bench's tracer records every module resolved; record-loads.js adds the CommonJS cache and Node's own.
const PRELOADS = ['bench/lib/trace-loads.js', 'test/helpers/record-loads.js'].map((path) => `--import=${pathToFileURL(join(REPO_ROOT, path)).href}`);

/** The modules of src/report/ a run of the CLI loaded (a file of the CLI's bundle as the modules of dist it holds). */
async function reportModulesLoaded(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const dir = tempDir();
  const [file, traced] = [join(dir, 'loads.json'), join(dir, 'traced.txt')];
  const result = await runCli(args, { cwd: dir, env: { ...env, LOADS_FILE: file, BENCH_LOADS_FILE: traced, NODE_OPTIONS: PRELOADS.join(' ') } });
  expect(result.code, result.stderr).toBe(0);
  const modules = unbundled([...(JSON.parse(readFileSync(file, 'utf8')) as { modules: string[] }).modules, ...readFileSync(traced, 'utf8').split('\n')]);
  return [...new Set(modules.filter((path) => /\/dist\/report\/html/.test(path)).map((path) => path.replace(/^.*\/dist\//, '')))].sort();
}

describe('the HTML report loads only when asked for', () => {
  it('--version and a run with a CSV report never load it; a run with an .html report does', async () => {
    const catalog = join(REPO_ROOT, 'fixtures', 'catalog.csv');
    const [version, csv, html] = await Promise.all([
      reportModulesLoaded(['--version']),
      reportModulesLoaded(['publish', catalog, '--sandbox', '--no-journal', '--quiet', '--report', 'r.csv']),
      reportModulesLoaded(['publish', catalog, '--sandbox', '--no-journal', '--quiet', '--report', 'r.html']),
    ]);
    expect(version).toEqual([]);
    expect(csv).toEqual([]);
    expect(html).toEqual([
      'report/html-digest.js',
      'report/html.js',
      'report/html/cards.js',
      'report/html/charts.js',
      'report/html/problems.js',
      'report/html/render.js',
      'report/html/script.js',
      'report/html/styles.js',
      'report/html/text.js',
    ]);
  });
});

/**
 * What the layout check reports in the page (a string, run by the browser: the tests are typed without the DOM
 * library): a summary table whose container scrolls sideways, a cell whose content overflows it, a number or a
 * marketplace name broken over two lines.
 */
const LAYOUT_PROBLEMS = `(() => {
  const problems = [];
  const named = (el) => {
    const table = el.closest('table');
    return (table ? (table.id || table.className) : el.className) + ' ' + el.tagName.toLowerCase() + ' "' + el.textContent.trim().slice(0, 40) + '"';
  };
  for (const box of document.querySelectorAll('.scroll')) {
    if (box.scrollWidth > box.clientWidth + 1) problems.push('scrolls sideways: ' + named(box.querySelector('table')) + ' ' + box.scrollWidth + ' > ' + box.clientWidth);
  }
  for (const cell of document.querySelectorAll('td, th, .tile-value, .tile-note, .stats dd, .legend li, .meta dd')) {
    if (cell.scrollWidth > cell.clientWidth + 1) problems.push('clipped: ' + named(cell) + ' ' + cell.scrollWidth + ' > ' + cell.clientWidth);
  }
  const whole = 'table.markets td, table.markets tbody th, table.groups td:first-child, table.groups td:nth-child(3), .tile-value, .stats dd';
  for (const cell of document.querySelectorAll(whole)) {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    if (lines > 1) problems.push('broken over ' + lines + ' lines: ' + named(cell));
  }
  return problems;
})()`;

describe.skipIf(!hasChromium)(hasChromium ? 'the HTML report layout in chromium at 800, 1280 and 1920 px' : `the HTML report layout (SKIPPED: no ${CHROMIUM})`, () => {
  it('clips no cell and scrolls no summary table sideways; lists only real marketplaces', async () => {
    const { chromium } = await import('playwright-core');
    const launched = chromium.launch({ executablePath: CHROMIUM });
    const sandbox = await startSandboxProcess(['--fail-rate', '0.05', '--fail-status', '500', '--seed', '7']);
    const dir = tempDir();
    // 2,400 rows over two marketplaces (four-digit counts), long error messages, and values that are no marketplace.
    const lines = [HEADER];
    for (let i = 0; i < 2400; i++) {
      let row = csvRow(i).replace('EBAY_US', i % 2 === 0 ? 'EBAY_US' : 'EBAY_GB');
      if (i % 50 === 7) row = row.replace(/EBAY_[A-Z]{2}/, 'ebay');
      else if (i % 40 === 3) row = row.replace(`https://images.example.com/${i}/b.jpg`, `relative/path/to/a/rather/long/image/name-${i}-with-many-words.jpg`);
      lines.push(row);
    }
    writeFileSync(join(dir, 'catalog.csv'), `${lines.join('\n')}\n`);
    const result = await runCli(['publish', 'catalog.csv', '--report', 'run.html', '--max-attempts', '1', '--no-journal', '--quiet', '--concurrency', '32'], { cwd: dir, env: publishEnv(sandbox.url), timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(1);
    const browser = await launched;
    try {
      const found: string[] = [];
      for (const width of [800, 1280, 1920]) {
        const page = await browser.newPage({ viewport: { width, height: 1000 } });
        await page.goto(pathToFileURL(join(dir, 'run.html')).href);
        const names = await page.locator('#by-marketplace tbody th').allTextContents();
        expect(names).toEqual(['(none)', 'EBAY_GB', 'EBAY_US']);
        expect(await page.locator('#by-marketplace tbody tr:nth-child(2) td').first().textContent()).toMatch(/^\d,\d{3}$/);
        found.push(...(await page.evaluate<string[]>(LAYOUT_PROBLEMS)).map((problem) => `${width} px: ${problem}`));
        await page.close();
      }
      expect(found).toEqual([]);
    } finally {
      await browser.close();
      await sandbox.stop();
    }
  });
});
