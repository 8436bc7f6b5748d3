import type { ExpectStatic } from 'vitest';
import type { RunSummary } from '../../src/report/summary.js';
import type { CliResult } from './cli.js';
import { publishCatalog, publishEnv } from './publish.js';

/**
 * The runs and checks of the busy-is-not-down tests (test/e2e/publish-service-health.test.ts, and its restarts in
 * test/stress/service-restart.test.ts): `listings publish --json` against a service, judged by its summary.
 */

/** The key of every run; a sandbox is started with `--api-key` so that it is the right one. */
export const KEY = 'sk_live_HEALTH_e2e_7d1e4b9c';

export interface Run {
  result: CliResult;
  summary: RunSummary;
  /** Wall time of the CLI, spawn to exit, in ms. */
  ms: number;
}

/** `listings publish catalog.csv --json ...extra` with `rows` rows against `url`. */
export async function publish(url: string, rows: number, extra: string[] = [], timeoutMs = 30_000): Promise<Run> {
  const { result, ms } = await publishCatalog(rows, ['--json', ...extra], { env: publishEnv(url, KEY), timeoutMs });
  let summary: RunSummary;
  try {
    summary = JSON.parse(result.stdout) as RunSummary;
  } catch {
    throw new Error(`no JSON summary on stdout (exit ${result.code})\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  }
  return { result, summary, ms };
}

/** The summary's row counts add up to the catalog, and the key was printed nowhere. */
export function expectSound(expect: ExpectStatic, run: Run, rows: number): void {
  const { summary, result } = run;
  expect(summary.rows).toBe(rows);
  expect(summary.published + summary.failed + summary.invalid + summary.skipped + summary.not_attempted + summary.validated, JSON.stringify(summary)).toBe(rows);
  expect(summary.invalid).toBe(0);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(result.stdout + result.stderr).not.toContain(KEY);
}

/**
 * Exit 3, `error the service could not be used: ...` naming the cause, and a hint line. Returns the error line.
 * The hint is a soft assertion, so that a missing hint is reported next to the test's other findings.
 */
export function expectDown(expect: ExpectStatic, run: Run, cause: RegExp): string {
  const { result } = run;
  expect(result.code, result.stderr).toBe(3);
  const line = result.stderr.split('\n').find((text) => text.includes('the service could not be used: '));
  expect(line, result.stderr).toBeDefined();
  expect(line).toMatch(/^error the service could not be used: /);
  expect(line).toMatch(cause);
  expect.soft(result.stderr, 'a hint line follows the error').toMatch(/\nhint\s+\S.*\n/);
  return line ?? '';
}

/**
 * Time bounds. The run's own time (`duration_ms`, counted from the start of the command, so without Node's
 * start-up and module loading, which take seconds on a loaded machine) must be under `runMs`: that is what "stops
 * at once" means. The wall time, spawn to exit, must be under `wallMs`, a guard against a hang.
 */
export function expectWithin(expect: ExpectStatic, run: Run, runMs: number, wallMs: number): void {
  expect(run.summary.duration_ms, 'duration_ms of the run').toBeLessThan(runMs);
  expect(run.ms, 'wall time, spawn to exit').toBeLessThan(wallMs);
}

/** Exit 0, every row published, and the sandbox created each listing exactly once. */
export function expectAllCreated(expect: ExpectStatic, run: Run, stats: { created: number; duplicates: number }, rows: number): void {
  expect(run.result.code, run.result.stderr).toBe(0);
  expectSound(expect, run, rows);
  expect(run.summary.published).toBe(rows);
  expect(stats.created).toBe(rows);
  expect(stats.duplicates).toBe(0);
}
