import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { HEADER, csvRow, skuOf } from '../helpers/publish.js';
import { OUTCOMES, RestartableSandbox, freePort, memoryOf, readNdjsonReport, seededRandom, sleep, watchedRun, type ReportSummary } from './chaos-helpers.js';

const ROWS = Number(process.env.SOAK_ROWS ?? 1_000_000);
const SEED = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Bounds on the CLI's memory: the peak, and its growth from the 100,000th row to the end. */
// The peak measured here was 125-162 MB; the bound leaves room for a slower, busier CI machine.
const PEAK_RSS_MB = 256;
// V8 grows its heap in steps and a GC may come late: a growth of 40% from 114 MB was seen with no leak (the peak stayed
// at 162 MB). A per-row leak of even 100 bytes would add 90 MB over the last 900,000 rows: a doubling catches it.
const GROWTH = 1.0;
const AT = 100_000;

interface Sample {
  created: number;
  rssMb: number;
  peakMb: number;
}

describe('soak', () => {
  it(`${ROWS} rows against the chaos sandbox (restarted halfway): memory flat, counts add up, no duplicate`, async () => {
    const context = `SOAK_SEED=${SEED} SOAK_ROWS=${ROWS}`;
    console.log(`soak: ${context}`);
    const started = Date.now();
    const dir = tempDir('listings-soak-');
    const catalog = join(dir, 'catalog.csv');
    const fd = openSync(catalog, 'w');
    writeSync(fd, `${HEADER}\n`);
    for (let from = 0; from < ROWS; from += 10_000) {
      const lines: string[] = [];
      for (let i = from; i < Math.min(ROWS, from + 10_000); i++) lines.push(csvRow(i));
      writeSync(fd, `${lines.join('\n')}\n`);
    }
    closeSync(fd);

    const random = seededRandom(SEED);
    const sandbox = new RestartableSandbox(await freePort(random), join(dir, 'sandbox-data.ndjson'), (life) => [
      '--seed', String(SEED + life),
      '--latency', '0-2',
      // 500s, not 503s: a 503 is pushback that cuts the concurrency, and costs a third of the pace; chaos.test.ts has them.
      '--fail-rate', '0.001',
      '--fail-status', '500',
      '--drop-rate', '0.0005',
      '--spike-rate', '0.0001',
      '--spike-ms', '1500',
    ]);
    await sandbox.start();

    const samples: Sample[] = [];
    let pid: number | undefined;
    let running = true;
    const sampling = (async () => {
      let created = 0;
      while (running) {
        const stats = await sandbox.stats();
        if (stats !== undefined) created = stats.created;
        const memory = pid === undefined ? undefined : memoryOf(pid);
        if (memory !== undefined) samples.push({ created, ...memory });
        await sleep(250);
      }
    })();
    const report = join(dir, 'soak.ndjson');
    const restartAt = Math.floor(ROWS * (0.4 + random() * 0.2));
    const result = await watchedRun(['publish', catalog, '--report', report, '--json', '--timeout', '1000'], {
      cwd: dir,
      sandbox,
      timeoutMs: 540_000,
      onSpawn: (spawned) => (pid = spawned),
      events: [{ name: `sandbox SIGKILL at ${restartAt} created`, when: (progress) => (progress.created ?? 0) >= restartAt, act: () => sandbox.restart('SIGKILL', 300) }],
    }).finally(() => (running = false));
    await sampling;
    const where = `${context} (${result.happened.join(', ')}, exit ${result.signal ?? result.code} in ${result.ms} ms)`;
    expect(result.code, `${where}\n${result.stderr.slice(-3000)}`).toBe(0);

    // Counts: the summary adds up, and the report lists every line once, in order, published.
    const printed = JSON.parse(result.stdout) as ReportSummary;
    let expected = 0;
    let notPublished = 0;
    const summary = await readNdjsonReport(report, (row) => {
      const i = expected++;
      if (row.line !== i + 2 || row.sku !== skuOf(i)) throw new Error(`${where}: report row ${i} is line ${row.line} (${row.sku})`);
      if (row.outcome !== 'published') notPublished++;
    });
    expect(expected, where).toBe(ROWS);
    expect(notPublished, where).toBe(0);
    expect(summary.published, where).toBe(ROWS);
    expect(OUTCOMES.reduce((sum, outcome) => sum + summary[outcome], 0), where).toBe(ROWS);
    expect(printed.published, where).toBe(ROWS);

    // The service: one listing per row, across the restart, none doubled.
    const stats = await sandbox.stats();
    await sandbox.stop('SIGTERM');
    expect(stats?.created, where).toBe(ROWS);
    expect(stats?.duplicates, where).toBe(0);
    expect(sandbox.restarts, where).toBe(1);

    // Memory: a bounded peak, and flat from the 100,000th row to the end.
    const peak = Math.max(...samples.map((sample) => sample.peakMb));
    const early = samples.filter((sample) => sample.created >= AT && sample.created < 2 * AT).map((sample) => sample.rssMb);
    const late = samples.filter((sample) => sample.created >= ROWS * 0.9).map((sample) => sample.rssMb);
    expect(early.length, `${where}: samples around ${AT} rows`).toBeGreaterThan(0);
    expect(late.length, `${where}: samples near the end`).toBeGreaterThan(0);
    const atEarly = Math.max(...early);
    const atEnd = Math.max(...late);
    const growth = atEnd / atEarly - 1;
    const seconds = (Date.now() - started) / 1000;
    const { byStatus } = sandbox.totals;
    console.log(
      `soak: ${ROWS} rows (${(statSync(catalog).size / 2 ** 20).toFixed(0)} MiB CSV) in ${(result.ms / 1000).toFixed(0)} s (${Math.round(ROWS / (result.ms / 1000))} rows/s, test ${seconds.toFixed(0)} s), ` +
        `1 sandbox restart; faults at least ${byStatus['500'] ?? 0} x 500, ${sandbox.totals.dropped} dropped, ${printed.timeouts} client timeouts; ` +
        `published ${summary.published}, created ${stats?.created}, lost 0, duplicates ${stats?.duplicates}; ` +
        `CLI peak RSS ${peak.toFixed(0)} MB, RSS ${atEarly.toFixed(0)} MB at ${AT / 1000}k rows -> ${atEnd.toFixed(0)} MB at the end (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%)`,
    );
    // The RSS along the run, the highest in each tenth of it, for the eye.
    const tenths = Array.from({ length: 10 }, (_, tenth) => {
      const inTenth = samples.filter((sample) => sample.created >= (ROWS * tenth) / 10 && sample.created < (ROWS * (tenth + 1)) / 10);
      return inTenth.length === 0 ? '-' : Math.max(...inTenth.map((sample) => sample.rssMb)).toFixed(0);
    });
    console.log(`soak: CLI RSS (MB) by tenth of the run: ${tenths.join(' ')}`);
    expect(peak, where).toBeLessThan(PEAK_RSS_MB);
    expect(growth, where).toBeLessThan(GROWTH);
  });
});
