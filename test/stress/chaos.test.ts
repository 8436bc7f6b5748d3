import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idempotencyKeyForHash } from '../../src/publish/idempotency.js';
import { tempDir } from '../helpers/tmp.js';
import { HEADER, csvRow, skuOf } from '../helpers/publish.js';
import {
  OUTCOMES,
  RestartableSandbox,
  freePort,
  readDataFile,
  readJournal,
  readNdjsonReport,
  seededRandom,
  watchedRun,
  type ReportSummary,
  type RunEvent,
} from './chaos-helpers.js';

const ROWS = Number(process.env.CHAOS_ROWS ?? 50_000);
const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Runs killed with SIGKILL at a random point, each followed by `--resume`. */
const KILLED_RUNS = 4;
/** `--resume` runs allowed to finish the job once the kills are over. */
const FINAL_RUNS = 6;
const RUN_TIMEOUT_MS = 180_000;

/** One row in a thousand has an empty merchant location key: invalid, never sent, in every run. */
const isInvalid = (i: number): boolean => i % 1000 === 500;

const between = (random: () => number, min: number, max: number): number => Math.floor(min + random() * (max - min));

describe('chaos: faults, sandbox restarts and SIGKILLs of the CLI', () => {
  it(`${ROWS} rows: every row has one terminal outcome, published = created, no listing doubled, every replay under the row's first key`, async () => {
    const context = `CHAOS_SEED=${SEED} CHAOS_ROWS=${ROWS}`;
    console.log(`chaos: ${context} (set both to repeat this run)`);
    const started = Date.now();
    const random = seededRandom(SEED);
    const dir = tempDir('listings-chaos-');
    const catalog = join(dir, 'catalog.csv');
    const lines = [HEADER];
    for (let i = 0; i < ROWS; i++) lines.push(isInvalid(i) ? csvRow(i).replace(',warehouse-1,', ',,') : csvRow(i));
    writeFileSync(catalog, `${lines.join('\n')}\n`);
    const valid = new Set<string>();
    for (let i = 0; i < ROWS; i++) if (!isInvalid(i)) valid.add(skuOf(i));

    // Each life of the sandbox draws its own mix of faults from the seed.
    const faults: string[] = [];
    const sandbox = new RestartableSandbox(await freePort(random), join(dir, 'sandbox-data.ndjson'), (life) => {
      const draw = seededRandom(SEED + 7919 * (life + 1));
      const mix = {
        latency: `0-${between(draw, 2, 12)}`,
        failRate: (0.005 + draw() * 0.015).toFixed(3),
        dropRate: (0.003 + draw() * 0.007).toFixed(3),
        spikeRate: (0.0005 + draw() * 0.0015).toFixed(4),
        rateLimit: String(between(draw, 1200, 2500)),
      };
      faults.push(`life ${life}: latency ${mix.latency} ms, 500/503 ${mix.failRate}, drops ${mix.dropRate}, spikes of 1500 ms ${mix.spikeRate}, rate limit ${mix.rateLimit}/s`);
      return [
        '--seed', String(SEED + life),
        '--latency', mix.latency,
        '--fail-rate', mix.failRate,
        '--drop-rate', mix.dropRate,
        '--spike-rate', mix.spikeRate,
        '--spike-ms', '1500',
        '--rate-limit', mix.rateLimit,
        '--retry-after', '1',
      ];
    });
    await sandbox.start();

    const created = async (): Promise<number> => {
      for (let tries = 0; tries < 100; tries++) {
        const stats = await sandbox.stats();
        if (stats !== undefined) return stats.created;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the sandbox does not answer');
    };
    const restartEvent = (after: number, base: number): RunEvent => {
      const signal = random() < 0.5 ? ('SIGKILL' as const) : ('SIGTERM' as const);
      const downMs = between(random, 100, 2000);
      return {
        name: `sandbox ${signal} at +${after} created, down ${downMs} ms`,
        when: (progress) => progress.created !== undefined && progress.created >= base + after,
        act: () => sandbox.restart(signal, downMs),
      };
    };
    const killEvent = (name: string, when: RunEvent['when']): RunEvent => ({ name, when, act: (child) => void child.kill('SIGKILL') });

    const history: string[] = [];
    let kills = 0;
    let timeouts = 0;
    let clientRequests = 0;
    let runs = 0;
    const publish = async (fresh: boolean, events: RunEvent[]) => {
      const report = join(dir, `run-${runs++}.ndjson`);
      const args = ['publish', catalog, '--report', report, '--json', '--timeout', '1000', '--max-attempts', '2', ...(fresh ? [] : ['--resume'])];
      const result = await watchedRun(args, { cwd: dir, sandbox, events, timeoutMs: RUN_TIMEOUT_MS });
      history.push(`${fresh ? 'fresh' : 'resume'}${result.happened.length === 0 ? '' : ` [${result.happened.join('; ')}]`} -> ${result.signal ?? result.code} in ${result.ms} ms`);
      if (result.signal === 'SIGKILL') {
        kills++;
        // Reports are written whole at the end (temp file, rename), so a killed run leaves none.
        expect(existsSync(report), `${context}: report of a killed run`).toBe(false);
        return undefined;
      }
      const where = `${context} run ${runs - 1} (${history.join(' | ')})`;
      // A run that ends on its own has sent every row it read: exit 0, or 1 for the invalid and failed rows.
      expect([0, 1], `${where}\n${result.stderr.slice(-3000)}`).toContain(result.code);
      const summary = await checkReport(report, where);
      const printed = JSON.parse(result.stdout) as ReportSummary;
      expect(printed.published, where).toBe(summary.published);
      timeouts += printed.timeouts;
      clientRequests += printed.requests;
      return summary;
    };

    /** Row by row: every input line exactly once, in order, with its SKU and an outcome that ends it. */
    const checkReport = async (path: string, where: string): Promise<ReportSummary & { done: number }> => {
      let expected = 0;
      let done = 0;
      const summary = await readNdjsonReport(path, (row) => {
        const i = expected++;
        expect(row.line, `${where}: row ${i}`).toBe(i + 2);
        expect(row.sku, `${where}: row ${i}`).toBe(skuOf(i));
        if (isInvalid(i)) expect(row.outcome, `${where}: row ${i}`).toBe('invalid');
        else if (row.outcome === 'skipped') expect(row.reason, `${where}: row ${i}`).toBe('already published');
        else if (row.outcome !== 'published') expect(row.outcome, `${where}: row ${i} (${row.reason})`).toBe('failed');
        if (row.outcome === 'published' || row.outcome === 'skipped') done++;
      });
      expect(expected, `${where}: rows in the report`).toBe(ROWS);
      expect(summary.complete, where).toBe(true);
      expect(summary.rows, where).toBe(ROWS);
      expect(OUTCOMES.reduce((sum, outcome) => sum + summary[outcome], 0), `${where}: counts`).toBe(ROWS);
      expect(summary.invalid, where).toBe(ROWS - valid.size);
      return { ...summary, done };
    };

    // Killed runs: the first starts the journal afresh, the others resume it; some see the sandbox restarted first.
    for (let run = 0; run < KILLED_RUNS; run++) {
      const base = await created();
      const events: RunEvent[] = [];
      if (run === 0 || random() < 0.75) {
        const killAfter = between(random, ROWS * 0.03, ROWS * 0.18);
        if (run === 0 || random() < 0.7) events.push(restartEvent(between(random, killAfter * 0.1, killAfter * 0.9), base));
        events.push(killEvent(`SIGKILL at +${killAfter} created`, (progress) => progress.created !== undefined && progress.created >= base + killAfter));
      } else {
        const killMs = between(random, 150, 4000);
        events.push(killEvent(`SIGKILL after ${killMs} ms`, (progress) => progress.elapsedMs >= killMs));
      }
      await publish(run === 0, events);
    }

    // Then --resume until every valid row is published; the first of these sees the sandbox restarted mid-run.
    let final: (ReportSummary & { done: number }) | undefined;
    for (let run = 0; run < FINAL_RUNS && (final === undefined || final.done < valid.size); run++) {
      const events = run === 0 ? [restartEvent(between(random, ROWS * 0.01, ROWS * 0.12), await created())] : [];
      final = await publish(false, events);
    }
    const where = `${context} (${history.join(' | ')})`;
    expect(final, where).toBeDefined();
    expect(final!.done, `${where}: rows published at the end`).toBe(valid.size);
    expect(final!.failed, where).toBe(0);

    // The service's side: one listing per valid row, none doubled, across every restart.
    const stats = await sandbox.stats();
    await sandbox.stop('SIGTERM');
    expect(stats, where).toBeDefined();
    expect(stats!.created, `${where}: created`).toBe(valid.size);
    expect(stats!.duplicates, `${where}: duplicates`).toBe(0);
    // An Idempotency-Key reused with another body (422) would mean two rows share a key.
    expect(sandbox.totals.byStatus['422'] ?? 0, where).toBe(0);

    // Every creation kept by the sandbox: one per valid row, under the key of the row's content, which is the key of
    // every attempt the journal recorded for that row in any run. So no replay came under another key.
    const journal = readJournal(dir);
    const hashOf = new Map<string, string>();
    const published = new Set<string>();
    for (const line of journal.rows) {
      const known = hashOf.get(line.sku);
      if (known === undefined) hashOf.set(line.sku, line.hash);
      else expect(line.hash, `${where}: journal hash of ${line.sku}`).toBe(known);
      if (line.outcome === 'published') published.add(line.sku);
    }
    expect(published.size, `${where}: rows the journal has published`).toBe(valid.size);
    const creations = readDataFile(sandbox.dataFile);
    expect(creations.length, `${where}: creations kept`).toBe(valid.size);
    const createdSkus = new Set<string>();
    for (const creation of creations) {
      expect(valid.has(creation.sku), `${where}: ${creation.sku} created`).toBe(true);
      expect(createdSkus.has(creation.sku), `${where}: ${creation.sku} created twice`).toBe(false);
      createdSkus.add(creation.sku);
      expect(creation.key, `${where}: key of ${creation.sku}`).toBe(idempotencyKeyForHash(hashOf.get(creation.sku) ?? '?'));
    }
    expect(sandbox.totals.replayed, `${where}: replays (the faults must have exercised them)`).toBeGreaterThan(0);
    expect(kills, where).toBeGreaterThan(0);
    expect(sandbox.restarts, where).toBeGreaterThan(0);

    const { byStatus } = sandbox.totals;
    console.log(
      `chaos: seed ${SEED}, ${ROWS} rows (${ROWS - valid.size} invalid), ${runs} runs, ${kills} SIGKILLs of the CLI, ${sandbox.restarts} sandbox restarts; ` +
        `faults at least: ${byStatus['500'] ?? 0} x 500, ${byStatus['503'] ?? 0} x 503, ${byStatus['429'] ?? 0} x 429, ${sandbox.totals.dropped} dropped, ${timeouts} client timeouts (spikes) in finished runs; ` +
        `${sandbox.totals.requests} requests (${clientRequests} sent by finished runs), ${sandbox.totals.replayed} replays; created ${stats!.created}, published ${valid.size}, lost 0, duplicates ${stats!.duplicates}; ` +
        `${Math.round((Date.now() - started) / 1000)} s`,
    );
    console.log(`chaos: runs: ${history.join(' | ')}`);
    console.log(`chaos: faults: ${faults.join('; ')}`);
  });
});
