/**
 * (5) latency-bound throughput: publish to `listings sandbox --latency 20` at concurrency 64, against the ideal
 * concurrency / latency. Also the sandbox's own throughput (it validates every request), as a separate figure.
 */
import { join } from 'node:path';
import { failure, log, runListings } from '../lib/context.js';
import { round, summary } from '../lib/stats.js';
import { SANDBOX_KEY, loadTest, startSandbox } from './servers.js';

const CONCURRENCY = 64;

async function publishToSandbox(catalog, rows, sandboxArgs) {
  // A fresh sandbox per run: it remembers the SKUs it created, and a second run would meet its own listings.
  const sandbox = await startSandbox(sandboxArgs);
  try {
    const result = await runListings(
      (dir) => ['publish', catalog, '--concurrency', String(CONCURRENCY), '--report', join(dir, 'report.csv'), '--base-url', sandbox.url],
      { apiKey: SANDBOX_KEY },
    );
    if (result.code !== 0) throw failure('listings publish (sandbox)', result);
    const stats = await sandbox.stats();
    if (stats.created !== rows) throw new Error(`the sandbox created ${stats.created} of ${rows} listings`);
    return (rows / result.wallMs) * 1000;
  } finally {
    await sandbox.stop();
  }
}

export async function benchLatency(ctx, catalog, rows, latencyMs = 20) {
  const ideal = (CONCURRENCY / latencyMs) * 1000;
  const runs = [];
  for (let i = 0; i < ctx.smallRepeats; i++) {
    runs.push(await publishToSandbox(catalog, rows, ['--latency', String(latencyMs)]));
    log(`  latency-bound ${i + 1}/${ctx.smallRepeats}: ${round(runs.at(-1)).toLocaleString('en-US')} rows/s (ideal ${ideal})`);
  }
  const rowsPerSec = summary(runs);
  return { rows, latencyMs, concurrency: CONCURRENCY, idealRowsPerSec: ideal, rowsPerSec, ratio: summary(runs.map((r) => r / ideal)) };
}

export async function benchSandbox(ctx, catalog, rows) {
  const runs = [];
  for (let i = 0; i < ctx.smallRepeats; i++) {
    runs.push(await publishToSandbox(catalog, rows, []));
    log(`  sandbox ${i + 1}/${ctx.smallRepeats}: listings publish ${round(runs.at(-1)).toLocaleString('en-US')} rows/s`);
  }
  const sandbox = await startSandbox([]);
  let load;
  try {
    load = await loadTest(sandbox.url, ctx.loadSeconds, SANDBOX_KEY);
  } finally {
    await sandbox.stop();
  }
  log(`  sandbox under autocannon: ${load.reqPerSec.toLocaleString('en-US')} req/s (${load.non2xx} non-2xx)`);
  return { rows, publishRowsPerSec: summary(runs), autocannon: load };
}
