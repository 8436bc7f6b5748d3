import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { HEADER, interrupted, publishEnv, readCsvReport, writeCatalog } from '../helpers/publish.js';

const ROWS = 400;

/** Interrupted runs say what they did not read, and --retry-failed of their report sends it. */
describe('every row accounted for across an interrupt', () => {
  it('an interrupted run reports complete: false with the total; --retry-failed of its report sends the rows it never read', async () => {
    const sandbox = await startSandboxProcess(['--latency', '20-30']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, ROWS);
    const report = join(dir, 'first.csv');
    const first = await interrupted(['publish', catalog, '--concurrency', '4', '--no-journal', '--json', '--report', report, '--report', join(dir, 'first.json')], dir, sandbox.url, () => sandbox.stats(), 'SIGINT');
    expect(first.code, first.stderr).toBe(130);
    const summary = JSON.parse(first.stdout) as { rows: number; total: number; complete: boolean; interrupted: boolean; published: number };
    expect(summary).toMatchObject({ complete: false, interrupted: true, total: ROWS });
    expect(summary.rows).toBeLessThan(ROWS);
    expect(first.stderr).toMatch(new RegExp(`and about ${(ROWS - summary.rows).toLocaleString('en-US')} not read \\(of about ${ROWS}\\)`));
    const rows = readCsvReport(report);
    expect(rows.at(-1)).toMatchObject({ outcome: 'not_read', line: '' });
    expect(rows.filter((row) => row.outcome !== 'not_read')).toHaveLength(summary.rows);
    expect((JSON.parse(readFileSync(join(dir, 'first.json'), 'utf8')) as { summary: unknown }).summary).toMatchObject({ complete: false, total: ROWS });

    const retry = await runCli(['publish', catalog, '--retry-failed', report, '--json', '--no-journal', '--report', join(dir, 'second.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr).toMatch(/rows that .*first\.csv never reached \(its run stopped before reading them\) were sent as well/);
    expect(JSON.parse(retry.stdout)).toMatchObject({ rows: ROWS, total: ROWS, complete: true, interrupted: false, skipped: summary.published });
    expect(await sandbox.stats()).toMatchObject({ created: ROWS, duplicates: 0 });
    await sandbox.stop();
  });

  it('--retry-failed matches a row by its place and SKU: the published twin of a duplicated SKU is not sent again', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    // Lines 3 and 5 both carry SKU-A: line 3 is published, line 5 (and line 4) are invalid.
    const catalog = writeCatalog(dir, 0);
    const row = (sku: string, image: string) => `${sku},Item,EBAY_US,${image},warehouse-1,FULFILL-1,PAY-1,RETURN-1,NEW`;
    writeFileSync(catalog, [HEADER, row('SKU-0', 'https://images.example.com/0.jpg'), row('SKU-A', 'https://images.example.com/a.jpg'), row('SKU-B', 'ftp://not-an-image'), row('SKU-A', 'ftp://bad')].join('\n') + '\n');
    const report = join(dir, 'first.csv');
    const first = await runCli(['publish', catalog, '--no-journal', '--report', report], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(first.code, first.stderr).toBe(1);
    const outcomes = readCsvReport(report).map((r) => `${r.line}:${r.sku}:${r.outcome}`);
    expect(outcomes.slice(0, 2)).toEqual(['2:SKU-0:published', '3:SKU-A:published']);
    // Mark lines 4 and 5 failed, as a service failure would have: they are listed for retry, SKU-A's line 3 is not.
    writeFileSync(report, readFileSync(report, 'utf8').replace(/,4,SKU-B,invalid,/, ',4,SKU-B,failed,').replace(/,5,SKU-A,invalid,/, ',5,SKU-A,failed,'));
    const before = (await sandbox.stats()).requests;
    const retry = await runCli(['publish', catalog, '--retry-failed', report, '--no-journal', '--json', '--report', join(dir, 'second.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    const second = readCsvReport(join(dir, 'second.csv')).map((r) => `${r.line}:${r.sku}:${r.outcome}:${r.reason}`);
    expect(second[1], retry.stderr).toBe('3:SKU-A:skipped:not selected for retry');
    expect(second[0]).toBe('2:SKU-0:skipped:not selected for retry');
    // The two selected rows are still invalid locally: nothing reached the service, and line 3 was not resent.
    expect((await sandbox.stats()).requests).toBe(before);
    expect(second.slice(2).map((line) => line.split(':').slice(0, 3).join(':'))).toEqual(['4:SKU-B:invalid', '5:SKU-A:invalid']);
    await sandbox.stop();
  });
});
