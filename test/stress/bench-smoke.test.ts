import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

interface Summary {
  median: number;
  min: number;
  max: number;
}
interface Target {
  figure: string;
  met: boolean | undefined;
}
interface Results {
  machine: { cores: number; memoryMb: number; node: string; date: string };
  config: { rows: number };
  figures: Record<string, Record<string, unknown> | undefined>;
  errors: Record<string, string>;
  targets: Target[];
}

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bench', 'run.js'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const isRate = (value: unknown): boolean => {
  const s = value as Summary | undefined;
  return s !== undefined && Number.isFinite(s.median) && s.median > 0 && s.min <= s.median && s.median <= s.max;
};

describe('npm run bench (smoke: 2,000 rows, one repeat)', () => {
  it('runs every section end to end and writes results.json and RESULTS.md to --out', async () => {
    const out = tempDir('listings-bench-smoke-');
    const committed = join(REPO_ROOT, 'bench', 'RESULTS.md');
    const before = existsSync(committed) ? readFileSync(committed, 'utf8') : undefined;
    const run = await runBench([
      '--rows', '2000', '--repeats', '1', '--startup-repeats', '3', '--latency-rows', '2000', '--peer-rows', '50',
      '--load-seconds', '1', '--goodput-rows', '400', '--out', out, '--data-dir', join(out, 'data'),
    ]);
    expect(run.code, run.stderr).toBe(0);

    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Results;
    expect(results.errors).toEqual({});
    expect(results.config.rows).toBe(2000);
    expect(results.machine.cores).toBeGreaterThan(0);
    expect(results.machine.node).toBe(process.version);
    const { publish, validate, memory, startup, latency, sandbox, peer, responder, goodput } = results.figures;
    const models = (goodput as { models?: { name: string }[] } | undefined)?.models ?? [];
    expect(models.map((model) => model.name)).toEqual(expect.arrayContaining(['rate-limited', 'capacity-queue', 'load-shedding']));
    expect(isRate(publish?.listingsRowsPerSec)).toBe(true);
    expect(isRate(publish?.bareRowsPerSec)).toBe(true);
    expect(isRate(publish?.ratio)).toBe(true);
    for (const format of ['csv', 'ndjson']) {
      const figure = validate?.[format] as Record<string, unknown> | undefined;
      expect(isRate(figure?.listingsRowsPerSec), format).toBe(true);
      expect(isRate(figure?.bareRowsPerSec), format).toBe(true);
    }
    const mem = memory?.publish as { smallRows: number; largeRows: number; smallPeakRssMb: Summary; largePeakRssMb: Summary; growth: number };
    expect([mem.smallRows, mem.largeRows]).toEqual([200, 2000]);
    expect(mem.smallPeakRssMb.median).toBeGreaterThan(10);
    expect(mem.largePeakRssMb.median).toBeGreaterThan(10);
    expect(Number.isFinite(mem.growth)).toBe(true);
    expect(isRate(startup?.versionMs)).toBe(true);
    expect(isRate(startup?.nodeMs)).toBe(true);
    expect(Array.isArray(startup?.heavyLoaded)).toBe(true);
    expect(isRate(latency?.rowsPerSec)).toBe(true);
    expect(latency?.idealRowsPerSec).toBe(3200);
    expect(isRate(sandbox?.publishRowsPerSec)).toBe(true);
    expect((responder?.autocannon as { reqPerSec: number }).reqPerSec).toBeGreaterThan(0);
    // curl is optional on a user's machine: the figure is then skipped with a reason, never faked.
    if (peer?.skipped === undefined) expect(peer?.rowsPerSec).toBeGreaterThan(0);
    else expect(peer.skipped).toMatch(/curl/);

    expect(results.targets.length).toBeGreaterThanOrEqual(7);
    for (const target of results.targets) expect(typeof target.met, target.figure).toBe('boolean');
    const md = readFileSync(join(out, 'RESULTS.md'), 'utf8');
    expect(md).toContain('| figure | target | measured |');
    expect(md).toContain('publish rows/s, listings / bare reference client');
    expect(run.stdout).toContain('validate rows/s, listings / bare csv-parse loop (CSV)');
    // The committed results of the last full run are not touched by a smoke run.
    expect(existsSync(committed) ? readFileSync(committed, 'utf8') : undefined).toBe(before);
  }, 480_000);
});
