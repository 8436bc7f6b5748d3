import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishEnv, writeCatalog } from '../helpers/publish.js';

/** Requests in flight, and the sandbox's time per request: the service can answer at most 4 x 1000 / 10 = 400 rows/s. */
const CONCURRENCY = 4;
const LATENCY_MS = 10;
const MOST_PER_SECOND = (CONCURRENCY * 1000) / LATENCY_MS;

describe('the HTML throughput chart counts a row when its answer came', () => {
  let sandbox: SandboxProcess;

  beforeAll(async () => {
    // One request in ten answered 500: those rows wait for a retry while later rows are answered, and are then
    // released in input order in bursts.
    sandbox = await startSandboxProcess(['--latency', String(LATENCY_MS), '--fail-rate', '0.1', '--fail-status', '500', '--seed', '7']);
  });

  afterAll(async () => {
    await sandbox?.stop();
  });

  it('never peaks above what the service can answer, though rows are released in bursts after retries', async () => {
    const dir = tempDir();
    writeCatalog(dir, 600);
    // Ten attempts a row: at one failure in ten, five attempts all failed for one row in 100,000 (one of 600 rows in
    // about one run of 170), and this test is about the chart, not about giving up.
    const result = await runCli(['publish', 'catalog.csv', '--concurrency', String(CONCURRENCY), '--max-attempts', '10', '--report', 'run.html', '--json', '--no-journal'], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { published: number; requests: number };
    expect(summary.published).toBe(600);
    // Retries happened: some rows were held while others were answered.
    expect(summary.requests).toBeGreaterThan(620);
    const html = readFileSync(join(dir, 'run.html'), 'utf8');
    const peak = Number(/Rows finished per second: [\d,.]+ over the run, peak ([\d,.]+);/.exec(html)?.[1]?.replaceAll(',', ''));
    expect(peak).toBeGreaterThan(0);
    // A bar of 100 ms may hold one answer more per request slot than the steady pace: 4 x 11 per 100 ms at most.
    expect(peak).toBeLessThanOrEqual(MOST_PER_SECOND * 1.1);
  });
});
