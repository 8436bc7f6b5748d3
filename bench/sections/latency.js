/**
 * (5) latency-bound throughput: publish to `listings sandbox --latency 20` at concurrency 64, against the ideal
 * concurrency / latency. Also the sandbox's own throughput (it validates every request), as a separate figure.
 */
import { join } from 'node:path';
import { failure, log, runListings } from '../lib/context.js';
import { round, summary } from '../lib/stats.js';
import { bareOnce, publishOnce } from './publish.js';
import { SANDBOX_KEY, loadTest, startResponder, startSandbox } from './servers.js';

const CONCURRENCY = 64;

function publishArgs(catalog, url) {
  return (dir) => ['publish', catalog, '--concurrency', String(CONCURRENCY), '--report', join(dir, 'report.csv'), '--base-url', url];
}

async function publishToSandbox(catalog, rows, sandboxArgs) {
  // A fresh sandbox per run: it remembers the SKUs it created, and a second run would meet its own listings.
  const sandbox = await startSandbox(sandboxArgs);
  try {
    const result = await runListings(publishArgs(catalog, sandbox.url), { apiKey: SANDBOX_KEY });
    if (result.code !== 0) throw failure('listings publish (sandbox)', result);
    const stats = await sandbox.stats();
    if (stats.created !== rows) throw new Error(`the sandbox created ${stats.created} of ${rows} listings`);
    return (rows / result.wallMs) * 1000;
  } finally {
    await sandbox.stop();
  }
}

/**
 * The same run against bench/responder.js --latency, by listings and by the bare client: tells the tool's share of
 * a miss from the sandbox's, and what the machine allows at all (timers fire late on a loaded machine).
 */
async function publishToSlowResponder(catalog, rows, latencyMs, loadSeconds) {
  const responder = await startResponder(['--latency', String(latencyMs)]);
  try {
    const listings = await publishOnce(responder, catalog, rows);
    const bare = await bareOnce(responder, catalog, rows);
    // autocannon does nothing but send a prepared request: the ceiling of the server's timers and loopback here.
    const load = await loadTest(responder.url, loadSeconds);
    return { listings: listings.rowsPerSec, bare: bare.rowsPerSec, autocannon: load.reqPerSec };
  } finally {
    await responder.stop();
  }
}

export async function benchLatency(ctx, catalog, rows, latencyMs = 20) {
  const ideal = (CONCURRENCY / latencyMs) * 1000;
  const runs = { sandbox: [], responder: [], bare: [], autocannon: [] };
  for (let i = 0; i < ctx.smallRepeats; i++) {
    runs.sandbox.push(await publishToSandbox(catalog, rows, ['--latency', String(latencyMs)]));
    const twin = await publishToSlowResponder(catalog, rows, latencyMs, ctx.loadSeconds);
    runs.responder.push(twin.listings);
    runs.bare.push(twin.bare);
    runs.autocannon.push(twin.autocannon);
    const f = (v) => round(v).toLocaleString('en-US');
    log(`  latency-bound ${i + 1}/${ctx.smallRepeats}: sandbox ${f(runs.sandbox.at(-1))} rows/s; responder: listings ${f(twin.listings)}, bare ${f(twin.bare)} rows/s, autocannon ${f(twin.autocannon)} req/s (ideal ${ideal})`);
  }
  const ratio = (list) => summary(list.map((r) => r / ideal));
  return {
    rows,
    latencyMs,
    concurrency: CONCURRENCY,
    idealRowsPerSec: ideal,
    rowsPerSec: summary(runs.sandbox),
    ratio: ratio(runs.sandbox),
    responderRowsPerSec: summary(runs.responder),
    responderRatio: ratio(runs.responder),
    bareRowsPerSec: summary(runs.bare),
    bareRatio: ratio(runs.bare),
    autocannonReqPerSec: summary(runs.autocannon),
    autocannonRatio: ratio(runs.autocannon),
  };
}

export async function benchSandbox(ctx, catalog, rows) {
  const runs = [];
  for (let i = 0; i < ctx.sandboxRepeats; i++) {
    runs.push(await publishToSandbox(catalog, rows, []));
    log(`  sandbox ${i + 1}/${ctx.sandboxRepeats}: listings publish ${round(runs.at(-1)).toLocaleString('en-US')} rows/s`);
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
