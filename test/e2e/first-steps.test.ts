import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { readCsvReport } from '../helpers/publish.js';

const CATALOG = join(REPO_ROOT, 'fixtures', 'catalog.csv');

/** What a new user meets in the first runs: the failure path tried in one command, and the hints of their first mistakes. */
describe('first steps', () => {
  it('publish --sandbox takes the fault options: retries show in the report, failed rows set the exit, no journal in the working directory', async () => {
    const dir = tempDir();
    const retried = await runCli(['publish', CATALOG, '--sandbox', '--fail-rate', '0.3', '--seed', '1', '--report', 'r.csv'], { cwd: dir });
    const rows = readCsvReport(join(dir, 'r.csv'));
    expect(retried.code, retried.stderr).toBe(rows.every((row) => row.outcome === 'published') ? 0 : 1);
    expect(rows.some((row) => Number(row.attempts) > 1)).toBe(true);
    expect(retried.stderr).toMatch(/overloaded \(503\)/);
    // A try-out against a sandbox that is gone after the run keeps no journal among the user's files.
    expect(existsSync(join(dir, '.listings'))).toBe(false);

    const failing = await runCli(['publish', CATALOG, '--sandbox', '--fail-rate', '0.3', '--fail-status', '422', '--seed', '1', '--report', 'f.csv'], { cwd: dir });
    const failed = readCsvReport(join(dir, 'f.csv')).filter((row) => row.outcome === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failing.code, failing.stderr).toBe(1);
  });

  it('a fault option without --sandbox is a usage error naming it, and bad values are refused by name', async () => {
    const dir = tempDir();
    const alone = await runCli(['publish', CATALOG, '--fail-rate', '0.3', '--rate-limit', '5'], { cwd: dir });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--fail-rate, --rate-limit are faults of the embedded sandbox: add --sandbox/);
    const bad = await runCli(['publish', CATALOG, '--sandbox', '--fail-rate', '2'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fail-rate .*"2"/);
  });
});
