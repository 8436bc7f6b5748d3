import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import type { RunSummary } from '../../src/report/summary.js';
import { csvRow, publishEnv, readCsvReport, writeCatalog } from '../helpers/publish.js';

describe('listings publish: the command line', () => {
  it('runs the README quick start against the embedded sandbox, with no account', async () => {
    const dir = tempDir();
    const result = await runCli(['publish', join(REPO_ROOT, 'fixtures', 'catalog.csv'), '--sandbox', '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as RunSummary;
    expect(summary.rows).toBeGreaterThan(0);
    expect(summary).toMatchObject({ published: summary.rows, failed: 0, invalid: 0, not_attempted: 0, skipped: 0 });
    expect(Object.keys(summary).sort()).toEqual([
        'complete',
        'duration_ms',
        'enqueued',
        'errors_by_status',
        'failed',
        'interrupted',
        'invalid',
        'next_step',
        'not_attempted',
        'overloaded',
        'peak_concurrency',
        'published',
        'report',
        'requests',
        'rows',
        'rows_per_second',
        'skipped',
        'throttled',
        'timeouts',
        'total',
        'validated',
      ].sort());
    expect(result.stderr).toMatch(/published/);
    expect(result.stderr).not.toMatch(/sandbox-[0-9a-f]{24}/);
    // Requests in flight at once, not the limit the run would have allowed: never more than were sent.
    expect(summary.peak_concurrency).toBeGreaterThan(0);
    expect(summary.peak_concurrency).toBeLessThanOrEqual(summary.requests);
    expect(summary.requests).toBe(summary.rows);
  });

  it('publishes a plain WooCommerce export with exit 0: its grouped product is skipped, with the reason, not sent', async () => {
    const dir = tempDir();
    const report = join(dir, 'report.csv');
    const args = ['publish', join(REPO_ROOT, 'fixtures', 'woocommerce-export.csv'), '--preset', 'woocommerce', '--sandbox', '--json', '--report', report];
    const result = await runCli([...args, '--marketplace', 'EBAY_US', '--merchant-location-key', 'wh-1', '--fulfillment-policy-id', 'f1', '--payment-policy-id', 'p1', '--return-policy-id', 'r1'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 9, published: 8, skipped: 1, invalid: 0, failed: 0 });
    const skipped = readCsvReport(report).filter((row) => row.outcome === 'skipped');
    expect(skipped).toEqual([expect.objectContaining({ line: '6', reason: expect.stringContaining('grouped product is not a listing') as string, attempts: '0' })]);
  });

  it('maps mistakes to exit codes before sending anything: 2 for usage and config, 4 for a source it cannot read', async () => {
    const dir = tempDir();
    const catalog = writeCatalog(dir, 3);
    const env = publishEnv('http://127.0.0.1:9');
    const cases: [string[], number, RegExp][] = [
      [['publish', join(dir, 'missing.csv')], 4, /missing\.csv/],
      [['publish', catalog, '--shard', '4/3'], 2, /--shard/],
      [['publish', catalog, '--report', join(dir, 'r.txt')], 2, /\.txt/],
      [['publish', catalog, '--resume', '--no-journal'], 2, /--resume/],
      [['publish', catalog, '--max-attempts', '0'], 2, /max-attempts/],
    ];
    for (const [args, code, message] of cases) {
      const result = await runCli(args, { cwd: dir, env });
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(code);
      expect(result.stderr).toMatch(message);
    }
    const noUrl = await runCli(['publish', catalog], { cwd: dir });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/base_url/);
  });

  it('--dry-run sends nothing and needs no service; invalid rows still exit 1', async () => {
    const dir = tempDir();
    const catalog = writeCatalog(dir, 20, 'catalog.csv', (i) => (i === 7 ? csvRow(i).replace('EBAY_US', 'ebay') : csvRow(i)));
    const result = await runCli(['publish', catalog, '--dry-run', '--json', '--report', join(dir, 'plan.ndjson')], { cwd: dir });
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 20, validated: 19, invalid: 1, published: 0 });
    // One real marketplace (the refused value is none), so the line names no marketplace; its message names the value.
    expect(result.stderr).toMatch(/catalog\.csv:9: sku SKU-000007: invalid: marketplace: "ebay"/);
    const lines = readFileSync(join(dir, 'plan.ndjson'), 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(20);
    expect(existsSync(join(dir, '.listings'))).toBe(false);
  });

  it('--max-errors stops sending after N failed rows: the rest are not_attempted, exit 1', async () => {
    const sandbox = await startSandboxProcess(['--fail-rate', '1', '--fail-status', '422']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 500);
    const result = await runCli(['publish', catalog, '--max-errors', '3', '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout) as RunSummary;
    expect(summary.failed).toBeGreaterThanOrEqual(3);
    expect(summary.failed).toBeLessThan(20);
    expect(summary.not_attempted).toBeGreaterThan(0);
    expect(summary.failed + summary.not_attempted).toBe(500);
    expect(summary.errors_by_status).toEqual({ '422': summary.failed });
    expect(result.stderr).toMatch(/--max-errors/);
    expect((await sandbox.stats()).requests).toBe(summary.failed);
  });

  it('--retry-failed sends again only the rows a report lists as failed', async () => {
    const flaky = await startSandboxProcess(['--fail-rate', '0.2', '--fail-status', '422', '--seed', '3']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 200);
    const first = await runCli(['publish', catalog, '--report', join(dir, 'first.csv'), '--report', join(dir, 'first.json'), '--report', join(dir, 'first.xml')], { cwd: dir, env: publishEnv(flaky.url) });
    expect(first.code).toBe(1);
    const failed = readCsvReport(join(dir, 'first.csv')).filter((row) => row.outcome === 'failed').map((row) => row.sku);
    expect(failed.length).toBeGreaterThan(10);
    expect(JSON.parse(readFileSync(join(dir, 'first.json'), 'utf8'))).toHaveProperty('summary');
    expect(readFileSync(join(dir, 'first.xml'), 'utf8')).toContain('<testsuite');
    const healthy = await startSandboxProcess();
    const second = await runCli(['publish', catalog, '--retry-failed', join(dir, 'first.csv'), '--report', join(dir, 'second.csv')], { cwd: dir, env: publishEnv(healthy.url) });
    expect(second.code, second.stderr).toBe(0);
    const rows = readCsvReport(join(dir, 'second.csv'));
    expect(rows.filter((row) => row.outcome === 'published').map((row) => row.sku)).toEqual(failed);
    expect(rows.filter((row) => row.outcome === 'skipped').every((row) => row.reason === 'not selected for retry')).toBe(true);
    expect((await healthy.stats()).requests).toBe(failed.length);
  });
});
