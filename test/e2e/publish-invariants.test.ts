import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishEnv, writeCatalog } from '../helpers/publish.js';

const ROWS = 200;
const RUNS = 6;
const OUTCOME_COUNTS = ['published', 'failed', 'invalid', 'skipped', 'not_attempted', 'validated'] as const;

/** A small seeded generator (mulberry32), so a failing sequence can be run again with INVARIANT_SEED. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ReportRow {
  line: number;
  outcome: string;
}
interface Summary extends Record<(typeof OUTCOME_COUNTS)[number], number> {
  rows: number;
  complete: boolean;
}

/** The rows and summary of an NDJSON report. */
function readReport(path: string): { rows: ReportRow[]; summary: Summary } {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as ReportRow & { summary?: Summary });
  const last = lines.pop();
  if (last?.summary === undefined) throw new Error(`${path} does not end with its summary`);
  return { rows: lines, summary: last.summary };
}

/** Run one publish; stop it with `signal` once the sandbox has had `after` more requests. */
async function publish(args: string[], cwd: string, sandbox: SandboxProcess, stop: { signal: NodeJS.Signals; after: number } | undefined): Promise<{ code: number | null; stderr: string }> {
  const child = spawnCli(args, { cwd, env: publishEnv(sandbox.url) });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout?.resume();
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  if (stop !== undefined) {
    const start = (await sandbox.stats()).requests;
    let done = false;
    void exited.then(() => (done = true));
    while (!done && (await sandbox.stats()).requests < start + stop.after) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill(stop.signal);
  }
  const [code] = await exited;
  return { code, stderr };
}

/**
 * The run-by-run invariant: whatever sequence of interrupts, kills, faults and recovery modes, every report that
 * exists lists each row it reached once and its counts add up; the rows of all the runs cover the catalog; a final
 * resume publishes everything, each listing created once.
 */
describe('invariants over many runs', () => {
  it('random interrupts, kills, faults, --resume, --retry-failed and --changed-only: no row lost, none doubled', async () => {
    const seed = Number(process.env.INVARIANT_SEED ?? Math.floor(Math.random() * 1_000_000));
    const rand = random(seed);
    const context = `INVARIANT_SEED=${seed}`;
    const sandbox = await startSandboxProcess(['--latency', '2-15', '--fail-rate', '0.05', '--drop-rate', '0.01', '--seed', String(seed)]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, ROWS);
    const covered = new Set<number>();
    let lastReport: string | undefined;
    const history: string[] = [];

    const check = (path: string): Summary => {
      const { rows, summary } = readReport(path);
      const lines = rows.map((row) => row.line);
      expect(new Set(lines).size, `${context} ${path}: a row listed twice`).toBe(lines.length);
      expect(lines.every((line) => line >= 2 && line <= ROWS + 1), `${context} ${path}`).toBe(true);
      expect(OUTCOME_COUNTS.reduce((sum, key) => sum + summary[key], 0), `${context} ${path}: counts`).toBe(summary.rows);
      expect(summary.rows, `${context} ${path}`).toBe(rows.length);
      if (summary.complete) expect(rows.length, `${context} ${path}: complete`).toBe(ROWS);
      for (const line of lines) covered.add(line);
      return summary;
    };

    for (let run = 0; run < RUNS; run++) {
      const modes = ['fresh', 'resume', 'changed-only', ...(lastReport === undefined ? [] : ['retry-failed'])];
      const mode = modes[Math.floor(rand() * modes.length)]!;
      const roll = rand();
      const stop = roll < 0.35 ? { signal: 'SIGINT' as const, after: 10 + Math.floor(rand() * 120) } : roll < 0.6 ? { signal: 'SIGKILL' as const, after: 10 + Math.floor(rand() * 120) } : undefined;
      const report = join(dir, `run-${run}.ndjson`);
      const args = ['publish', catalog, '--concurrency', String(2 + Math.floor(rand() * 16)), '--max-attempts', '2', '--report', report];
      if (mode === 'resume') args.push('--resume');
      if (mode === 'changed-only') args.push('--changed-only');
      if (mode === 'retry-failed') args.push('--retry-failed', lastReport!);
      history.push(`${mode}${stop === undefined ? '' : ` ${stop.signal} after ${stop.after}`}`);
      const result = await publish(args, dir, sandbox, stop);
      const where = `${context} run ${run} (${history.join(' | ')})`;
      if (stop?.signal === 'SIGKILL' && result.code === null) {
        // Killed: the report is written whole at the end or not at all.
        expect(existsSync(report), where).toBe(false);
        continue;
      }
      expect([0, 1, 130], `${where}: ${result.stderr}`).toContain(result.code);
      check(report);
      lastReport = report;
    }

    // Recovery: resume until every row is published (faults may fail a few rows each time).
    let final: Summary | undefined;
    for (let attempt = 0; attempt < 4 && (final === undefined || final.published + final.skipped < ROWS); attempt++) {
      const report = join(dir, `final-${attempt}.ndjson`);
      const result = await publish(['publish', catalog, '--resume', '--report', report, '--concurrency', '8'], dir, sandbox, undefined);
      expect([0, 1], `${context} final ${attempt}: ${result.stderr}`).toContain(result.code);
      final = check(report);
      expect(final.complete, context).toBe(true);
    }
    expect(covered.size, `${context} (${history.join(' | ')})`).toBe(ROWS);
    expect(final!.published + final!.skipped, context).toBe(ROWS);
    const stats = await sandbox.stats();
    expect(stats.created, context).toBe(ROWS);
    expect(stats.duplicates, context).toBe(0);
    await sandbox.stop();
  });
});
