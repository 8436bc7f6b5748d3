import { once } from 'node:events';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { csvRow, interrupted, publishEnv, readCsvReport, writeCatalog } from '../helpers/publish.js';

describe('interrupt and resume', () => {
  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    it(`after ${signal}, --resume publishes the rest: the union is the catalog, no duplicates`, async () => {
      const sandbox = await startSandboxProcess(['--latency', '20-30']);
      const dir = tempDir();
      const catalog = writeCatalog(dir, 400);
      const first = await interrupted(['publish', catalog, '--concurrency', '4', '--report', join(dir, 'first.csv')], dir, sandbox.url, () => sandbox.stats(), signal);
      if (signal === 'SIGINT') {
        expect(first.code, first.stderr).toBe(130);
        expect(first.stderr).toContain('--resume');
        const rows = readCsvReport(join(dir, 'first.csv'));
        expect(rows.length).toBeLessThan(400);
        expect(rows.some((row) => row.outcome === 'not_attempted') || rows.length < 400).toBe(true);
      } else {
        expect(first.by).toBe('SIGKILL');
      }
      const before = await sandbox.stats();
      expect(before.created).toBeLessThan(400);
      const second = await runCli(['publish', catalog, '--resume', '--report', join(dir, 'second.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(second.code, second.stderr).toBe(0);
      const after = await sandbox.stats();
      expect(after.created).toBe(400);
      expect(after.duplicates).toBe(0);
      const rows = readCsvReport(join(dir, 'second.csv'));
      expect(rows).toHaveLength(400);
      const skipped = rows.filter((row) => row.outcome === 'skipped' && row.reason === 'already published').length;
      expect(skipped).toBeGreaterThan(0);
      expect(skipped + rows.filter((row) => row.outcome === 'published').length).toBe(400);
      const journal = join(dir, '.listings', readdirSync(join(dir, '.listings')).find((name) => name.startsWith('journal-'))!);
      expect(readFileSync(journal, 'utf8').match(/"journal":1/g)).toHaveLength(2);
      if (signal === 'SIGINT') {
        // A run without --resume starts the journal afresh (and the service answers the repeats from their keys).
        expect((await runCli(['publish', catalog, '--concurrency', '32'], { cwd: dir, env: publishEnv(sandbox.url) })).code).toBe(0);
        expect(readFileSync(journal, 'utf8').match(/"journal":1/g)).toHaveLength(1);
        expect(await sandbox.stats()).toMatchObject({ created: 400, duplicates: 0 });
      }
    });
  }
});

describe('a second Ctrl-C', () => {
  it('abandons the requests in flight: exit 130 at once, those rows failed as interrupted, and --resume still creates no duplicates', async () => {
    const sandbox = await startSandboxProcess(['--latency', '1000']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 6);
    const child = spawnCli(['publish', catalog, '--concurrency', '4', '--report', join(dir, 'first.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout?.resume();
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    for (let waited = 0; (await sandbox.stats()).requests === 0 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const abandonedAt = Date.now();
    child.kill('SIGINT');
    const [code] = await exited;
    expect(Date.now() - abandonedAt).toBeLessThan(2_000);
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('abandoning');
    const rows = readCsvReport(join(dir, 'first.csv'));
    expect(rows.filter((row) => row.outcome === 'failed' && row.reason === 'interrupted').length).toBeGreaterThanOrEqual(1);
    expect(rows.some((row) => row.outcome === 'published')).toBe(false);
    const second = await runCli(['publish', catalog, '--resume', '--concurrency', '16'], { cwd: dir, env: publishEnv(sandbox.url), timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    expect(await sandbox.stats()).toMatchObject({ created: 6, duplicates: 0 });
  });
});

describe('publish only what is needed', () => {
  it('--changed-only sends nothing the second time, and only the 3 edited rows after an edit', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const catalog = writeCatalog(dir, 60);
    const run = () => runCli(['publish', catalog, '--changed-only', '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
    expect((await run()).code).toBe(0);
    expect((await sandbox.stats()).requests).toBe(60);
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 60, skipped: 60, published: 0 });
    expect((await sandbox.stats()).requests).toBe(60);
    writeCatalog(dir, 60, 'catalog.csv', (i) => csvRow(i, i === 5 || i === 17 || i === 42 ? 'USED' : 'NEW'));
    const plan = await runCli(['publish', catalog, '--changed-only', '--dry-run', '--report', join(dir, 'plan.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(plan.code, plan.stderr).toBe(0);
    expect(readCsvReport(join(dir, 'plan.csv')).filter((row) => row.outcome === 'validated').map((row) => row.reason)).toEqual(['changed', 'changed', 'changed']);
    expect((await sandbox.stats()).requests).toBe(60);
    const third = await run();
    expect(third.code, third.stderr).toBe(0);
    expect(JSON.parse(third.stdout)).toMatchObject({ published: 3, skipped: 57 });
    expect((await sandbox.stats()).requests).toBe(63);
  });

  it('--shard 1/3, 2/3 and 3/3 together publish every row exactly once', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const catalog = writeCatalog(dir, 300);
    let published = 0;
    for (const shard of ['1/3', '2/3', '3/3']) {
      const result = await runCli(['publish', catalog, '--shard', shard, '--json', '--no-journal'], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as { published: number; skipped: number; rows: number };
      expect(summary.published).toBeGreaterThan(50);
      expect(summary.published + summary.skipped).toBe(300);
      published += summary.published;
    }
    expect(published).toBe(300);
    expect(await sandbox.stats()).toMatchObject({ created: 300, duplicates: 0, requests: 300 });
  });

  it('--shard auto takes the shard from the CI (GitLab 1-based, CircleCI 0-based), says so, and refuses when none is set', async () => {
    const dir = tempDir();
    const catalog = writeCatalog(dir, 90);
    // Whatever CI runs this test, only the variables given here are seen.
    const noCi = Object.fromEntries(['GITHUB_ACTIONS', 'CI_NODE_INDEX', 'CI_NODE_TOTAL', 'CIRCLE_NODE_INDEX', 'CIRCLE_NODE_TOTAL', 'BUILDKITE_PARALLEL_JOB', 'BUILDKITE_PARALLEL_JOB_COUNT', 'JOB_COMPLETION_INDEX'].map((name) => [name, undefined]));
    const run = (shard: string, env: Record<string, string> = {}) => runCli(['publish', catalog, '--sandbox', '--shard', shard, '--json', '--no-journal'], { cwd: dir, env: { ...noCi, ...env } });
    const [explicit, gitlab, circle, none] = await Promise.all([
      run('2/3'),
      run('auto', { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' }),
      run('auto', { CIRCLE_NODE_INDEX: '1', CIRCLE_NODE_TOTAL: '3' }),
      run('auto'),
    ]);
    expect(explicit.code, explicit.stderr).toBe(0);
    const published = (JSON.parse(explicit.stdout) as { published: number }).published;
    expect(published).toBeGreaterThan(10);
    expect(published).toBeLessThan(60);
    for (const [result, from] of [[gitlab, 'GitLab CI_NODE_INDEX/CI_NODE_TOTAL'], [circle, 'CircleCI CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL']] as const) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`shard 2/3 (from ${from})`);
      expect(JSON.parse(result.stdout)).toMatchObject({ published, skipped: 90 - published });
    }
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--shard auto: no CI job index is set in the environment');
    expect(none.stderr).toContain('LISTINGS_SHARD_INDEX (1 to N)');
    expect(none.stdout).toBe('');
  });
});

describe('the CSV report', () => {
  it('round-trips through csv-parse with formulas, quotes, commas and newlines in a title', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const titles = ['=HYPERLINK("http://evil.example/","click me")', 'He said "hi", then left', 'two\nlines, one cell', '+1 plus', '@at', '-minus'];
    const lines = ['sku,title,marketplace'];
    titles.forEach((title, i) => lines.push(`T-${i},"${title.replace(/"/g, '""')}",ebay`));
    const catalog = join(dir, 'titles.csv');
    writeFileSync(catalog, `${lines.join('\n')}\n`);
    const report = join(dir, 'report.csv');
    const result = await runCli(['publish', catalog, '--shape', 'wrapped', '--report', report], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(report, 'utf8');
    const rows = parse<Record<string, string>>(text, { columns: true });
    expect(rows.map((row) => row.sku)).toEqual(titles.map((_, i) => `T-${i}`));
    rows.forEach((row, i) => {
      const title = row.title!;
      expect(title).not.toMatch(/^[=+\-@\t\r\n]/);
      // Neutralised with a leading apostrophe where needed, and otherwise the title with its line breaks written out.
      expect(title.replace(/^'/, '')).toBe(titles[i]!.replace(/\n/g, '\\u000a'));
    });
  });
});
