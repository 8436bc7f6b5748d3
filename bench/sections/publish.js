/** (1) publish: `listings publish` against the responder vs the bare reference client, alternating. */
import { join } from 'node:path';
import { BENCH_DIR, NODE, failure, log, runListings } from '../lib/context.js';
import { measure } from '../lib/proc.js';
import { pairedRatio, round, summary } from '../lib/stats.js';

/**
 * Runs `once` against the responder; when the responder was ended from outside during the run (seen on shared
 * machines), starts a new one and runs again, once. Any other failure stands.
 */
async function withResponder(responder, once) {
  await responder.ensure();
  try {
    return await once();
  } catch (error) {
    if (responder.alive()) throw error;
    log(`  the responder was ended from outside during the run: starting a new one and running again`);
    await responder.ensure();
    return once();
  }
}

/** One `listings publish` run as a user runs it: report and journal on. Checks every row reached the server. */
export function publishOnce(responder, catalog, rows, options = {}) {
  return withResponder(responder, () => publishRun(responder, catalog, rows, options));
}

export function bareOnce(responder, catalog, rows, options = {}) {
  return withResponder(responder, () => bareRun(responder, catalog, rows, options));
}

/**
 * `concurrency: null` leaves the window to the tool's defaults; `report: false` leaves out the CSV report, so that a
 * run with `concurrency: null` is the defaults exactly as a user gets them (a journal, no report).
 */
async function publishRun(responder, catalog, rows, { concurrency = 64, report = true, nodeArgs = [] } = {}) {
  const before = await responder.posts();
  const result = await runListings(
    (dir) => [
      'publish',
      catalog,
      ...(concurrency === null ? [] : ['--concurrency', String(concurrency)]),
      ...(report ? ['--report', join(dir, 'report.csv')] : []),
      '--base-url',
      responder.url,
    ],
    { nodeArgs },
  );
  if (result.code !== 0) throw failure('listings publish', result);
  const sent = (await responder.posts()) - before;
  if (sent !== rows) throw new Error(`listings publish exited 0 but the responder received ${sent} of ${rows} rows`);
  return runFigures(result, rows);
}

/** Rate, peak RSS and CPU time per row (user + system: less sensitive than wall time to a busy machine). */
export function runFigures(result, rows) {
  return {
    wallMs: result.wallMs,
    rowsPerSec: (rows / result.wallMs) * 1000,
    maxRssKb: result.maxRssKb,
    cpuUsPerRow: result.cpuMs === undefined ? undefined : (result.cpuMs * 1000) / rows,
  };
}

async function bareRun(responder, catalog, rows, { concurrency = 64 } = {}) {
  const before = await responder.posts();
  const result = await measure(NODE, [join(BENCH_DIR, 'bare-client.js'), catalog, responder.url, '--concurrency', String(concurrency)]);
  if (result.code !== 0) throw failure('bare client', result);
  const sent = (await responder.posts()) - before;
  if (sent !== rows) throw new Error(`the bare client received answers for ${sent} of ${rows} rows`);
  return runFigures(result, rows);
}

export async function benchPublish(ctx, responder, catalog, rows) {
  const runs = { listings: [], bare: [] };
  for (let i = 0; i < ctx.repeats; i++) {
    // ABBA order, so a drift of the machine during the run weighs on both sides alike.
    const order = i % 2 === 0 ? ['listings', 'bare'] : ['bare', 'listings'];
    for (const who of order) {
      const run = who === 'listings' ? await publishOnce(responder, catalog, rows) : await bareOnce(responder, catalog, rows);
      runs[who].push(run);
      log(`  publish ${i + 1}/${ctx.repeats} ${who.padEnd(8)} ${round(run.rowsPerSec).toLocaleString('en-US')} rows/s, ${round(run.cpuUsPerRow)} CPU-us/row, peak RSS ${round(run.maxRssKb / 1024)} MB`);
    }
  }
  const rate = (list) => list.map((r) => r.rowsPerSec);
  return {
    rows,
    concurrency: 64,
    listingsRowsPerSec: summary(rate(runs.listings)),
    bareRowsPerSec: summary(rate(runs.bare)),
    ratio: pairedRatio(rate(runs.listings), rate(runs.bare)),
    listingsPeakRssMb: summary(runs.listings.map((r) => r.maxRssKb / 1024)),
    barePeakRssMb: summary(runs.bare.map((r) => r.maxRssKb / 1024)),
    ...cpuFigures(runs.listings, runs.bare),
  };
}

/** CPU time per row of each side and their ratio, where GNU time measured it. */
export function cpuFigures(listings, bare) {
  if (listings.some((r) => r.cpuUsPerRow === undefined) || bare.some((r) => r.cpuUsPerRow === undefined)) return {};
  const cpu = (list) => list.map((r) => r.cpuUsPerRow);
  return {
    listingsCpuUsPerRow: summary(cpu(listings)),
    bareCpuUsPerRow: summary(cpu(bare)),
    cpuRatio: pairedRatio(cpu(listings), cpu(bare)),
  };
}
