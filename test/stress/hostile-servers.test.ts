import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, it, type ExpectStatic } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startScriptedService } from '../helpers/fake-services.js';
import { expectInert } from '../helpers/inert-output.js';
import { tempDir } from '../helpers/tmp.js';
import { filesBelow, publishEnv, readCsvReport, writeCatalog } from '../helpers/publish.js';
import { memoryOf } from './chaos-helpers.js';

/**
 * Hostile servers, at length (the fast cases are test/e2e/hostile-servers.test.ts): a body that trickles for longer
 * than the default --timeout of 30 s, and thousands of rows each answered with an endless body of escape sequences.
 * The run ends in bounded time, its memory stays bounded, and what it writes is escaped and bounded.
 */

const KEY = 'canary-HOSTILE-stress-5b2e8d';
/** Peak RSS of the CLI while thousands of answers try to make it buffer megabytes each. */
const PEAK_RSS_MB = 250;

interface Watched {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  peakMb: number | undefined;
}

/** Run `listings ...args`, watching its peak RSS (Linux /proc) until it exits. */
async function watched(args: string[], cwd: string, url: string): Promise<Watched> {
  const started = Date.now();
  const child = spawnCli(args, { cwd, env: publishEnv(url, KEY) });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let peakMb: number | undefined;
  const timer = setInterval(() => {
    const memory = child.pid === undefined ? undefined : memoryOf(child.pid);
    if (memory !== undefined) peakMb = Math.max(peakMb ?? 0, memory.peakMb);
  }, 100);
  const [code] = (await once(child, 'close')) as [number | null];
  clearInterval(timer);
  return { code, stdout, stderr, ms: Date.now() - started, peakMb };
}

function expectClean(expect: ExpectStatic, dir: string, run: Watched): void {
  const written = filesBelow(dir).filter((path) => !path.endsWith('catalog.csv')).map((path): [string, string] => [path, readFileSync(path, 'utf8')]);
  expectInert(expect, [['stdout', run.stdout], ['stderr', run.stderr], ...written], KEY);
  for (const line of run.stderr.split('\n')) expect(line.length).toBeLessThan(600);
}

describe.concurrent('hostile servers at length', () => {
  it('a slow-loris body at the default --timeout: the run stops (exit 3) soon after 30 s', async ({ expect }) => {
    const service = await startScriptedService((_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.write('{"sku":"');
      const timer = setInterval(() => (response.destroyed ? clearInterval(timer) : response.write('a')), 1_000);
      response.once('close', () => clearInterval(timer));
    });
    const dir = tempDir('listings-hostile-stress-');
    const run = await watched(['publish', writeCatalog(dir, 20), '--json', '--report', join(dir, 'report.csv')], dir, service.url);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/no answer within 30000 ms/);
    expect(run.ms).toBeGreaterThanOrEqual(29_000);
    expect(run.ms).toBeLessThan(75_000);
    expectClean(expect, dir, run);
  }, 120_000);

  it('2,000 rows, each answered 422 with an endless body of escapes: bounded memory, bounded text, every row failed', async ({ expect }) => {
    const service = await startScriptedService((_request, response) => {
      response.writeHead(422, { 'content-type': 'application/json' });
      const chunk = `{"message":"bad \u001b[2J\u001b]0;pwned\u0007 ${'\u001b[31mx'.repeat(8_000)}`;
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    const dir = tempDir('listings-hostile-stress-');
    const rows = 2_000;
    const run = await watched(['publish', writeCatalog(dir, rows), '--json', '--max-attempts', '1', '--report', join(dir, 'report.csv'), '--report', join(dir, 'report.ndjson')], dir, service.url);
    expect(run.code, run.stderr).toBe(1);
    const report = readCsvReport(join(dir, 'report.csv'));
    expect(report).toHaveLength(rows);
    for (const row of report) {
      expect(row.outcome).toBe('failed');
      expect(row.error).toMatch(/^HTTP 422 Unprocessable Entity: /);
      expect(row.error?.length).toBeLessThan(400);
    }
    expectClean(expect, dir, run);
    console.log(`hostile stress: ${rows} endless 422 bodies in ${run.ms} ms, peak RSS ${run.peakMb?.toFixed(0) ?? '?'} MB`);
    if (run.peakMb !== undefined) expect(run.peakMb).toBeLessThan(PEAK_RSS_MB);
  }, 300_000);
});
