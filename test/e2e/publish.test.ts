import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import type { RunSummary } from '../../src/report/summary.js';
import { filesBelow, publishEnv, readCsvReport, skuOf, writeCatalog } from '../helpers/publish.js';

type Summary = RunSummary;

describe('listings publish against a flaky, throttling sandbox', () => {
  it('publishes 3,000 rows exactly once, in order, through failures, drops and a rate limit', async () => {
    const sandbox = await startSandboxProcess(['--fail-rate', '0.05', '--drop-rate', '0.02', '--rate-limit', '400', '--latency', '1-5', '--seed', '7']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 3_000);
    const report = join(dir, 'report.csv');
    const result = await runCli(['publish', catalog, '--report', report, '--json', '--timeout', '2000'], { cwd: dir, env: publishEnv(sandbox.url), timeoutMs: 120_000 });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary).toMatchObject({ rows: 3_000, published: 3_000, failed: 0, invalid: 0, not_attempted: 0, report: [report] });
    const stats = await sandbox.stats();
    expect(stats.created).toBe(3_000);
    expect(stats.duplicates).toBe(0);
    expect(stats.throttled + stats.dropped + (stats.by_status['500'] ?? 0) + (stats.by_status['503'] ?? 0)).toBeGreaterThan(0);
    const rows = readCsvReport(report);
    expect(rows).toHaveLength(3_000);
    expect(rows.every((row, i) => row.sku === skuOf(i) && row.line === String(i + 2) && row.outcome === 'published')).toBe(true);
  }, 150_000);
});

describe('listings publish against a service it cannot use', () => {
  it('stops with exit 3 after the first window of requests (4) when the key is rejected, and the key appears nowhere', async () => {
    const sandbox = await startSandboxProcess(['--api-key', 'the-right-key-0000']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 2_000);
    const wrongKey = 'sk_live_WRONG_e2e_key_5f3a9c';
    const started = Date.now();
    const result = await runCli(['publish', catalog, '--report', join(dir, 'r.csv'), '--report', join(dir, 'r.json'), '--json'], { cwd: dir, env: publishEnv(sandbox.url, wrongKey) });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain('could not be used');
    expect(result.stderr).toMatch(/HTTP 401/);
    const stats = await sandbox.stats();
    expect(stats.requests).toBeLessThanOrEqual(4);
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary.rows).toBe(2_000);
    expect(summary.failed).toBe(stats.requests);
    expect(summary.failed + summary.not_attempted).toBe(2_000);
    const rows = readCsvReport(join(dir, 'r.csv'));
    expect(rows.filter((row) => row.outcome === 'not_attempted').length).toBe(summary.not_attempted);
    expect(result.stdout + result.stderr).not.toContain(wrongKey);
    for (const file of filesBelow(dir)) expect(readFileSync(file, 'utf8'), file).not.toContain(wrongKey);
  });

  it('a base URL with a path the service does not serve: exit 3 after a handful of requests, naming the path it serves', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 200);
    const result = await runCli(['publish', catalog, '--json', '--base-url', `${sandbox.url}/api`], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/could not be used: no listing operation here \(HTTP 404/);
    expect(result.stderr).toContain('POST /v1/listings at its root');
    expect(result.stderr).toMatch(/hint .*\/api\/v1\/listings: check base_url/);
    const stats = await sandbox.stats();
    expect(stats.created).toBe(0);
    expect(stats.requests).toBeLessThanOrEqual(4);
  });

  it('spends no more than rows + the retry budget on a service that always fails with 500, and says so', async () => {
    const sandbox = await startSandboxProcess(['--fail-rate', '1', '--fail-status', '500']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 300);
    const result = await runCli(['publish', catalog, '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
    const stats = await sandbox.stats();
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary.rows).toBe(300);
    const attempted = summary.rows - summary.not_attempted;
    // Budget: 50 retries plus one per ten rows sent (RetryBudget defaults).
    expect(stats.requests).toBeLessThanOrEqual(attempted + 50 + Math.floor(attempted / 10));
    expect(stats.requests).toBeLessThan(300 + 50 + 30);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/could not be used: HTTP 500/);
  });

  it('holds the next attempt back for the Retry-After of a 429', async () => {
    const sandbox = await startSandboxProcess(['--rate-limit', '1', '--retry-after', '2']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 2);
    const report = join(dir, 'r.csv');
    const started = Date.now();
    const result = await runCli(['publish', catalog, '--concurrency', '1', '--report', report], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    const rows = readCsvReport(report);
    const retried = rows.find((row) => Number(row.attempts) > 1);
    expect(retried).toBeDefined();
    expect(Number(retried!.duration_ms)).toBeGreaterThanOrEqual(2_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect((await sandbox.stats()).throttled).toBeGreaterThanOrEqual(1);
  });
});
